package server_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// dshAssistantUsage is an assistant/message whose usage counts the way DSH
// does: inputTokens only the uncached part, the cache reads and writes
// beside it.
func dshAssistantUsage(text string, input, cacheRead, cacheWrite int) map[string]any {
	m := dsh.Assistant(1, 1, "deepseek", "v4", text, nil, input)
	m["usage"] = map[string]any{"inputTokens": input, "outputTokens": 5, "cacheReadTokens": cacheRead, "cacheWriteTokens": cacheWrite}
	return m
}

// TestBoundaryPressureFromDSHUsage (gaps of issues 13 and 16): context
// pressure from DSH's own events, through the real binary in both formats.
// An assistant/message whose usage (uncached input + cache reads + cache
// writes) reaches 80% of the window request/context last named is a
// context_pressure boundary through that message, and the record shows
// what the model read against the window; the uncached part alone, below
// the ratio, is not. A route change to a smaller window presses at the
// request/context that names it.
func TestBoundaryPressureFromDSHUsage(t *testing.T) {
	for _, f := range []dsh.Format{dsh.Format0, dsh.Format4} {
		h := initialized(t, host.Config{DataDir: t.TempDir()}, host.AllCapabilities())
		const sid = "ses-pressure"
		dshSend(t, h, sid, "turn/start", dsh.TurnStart(1))
		dshSend(t, h, sid, "user/message", dsh.Prompt("m1", "Make the parser tests pass."))
		dshSend(t, h, sid, "request/context", dsh.RequestContext("deepseek", "v4", 10000))
		call := dsh.Call{ID: "call_1", Name: "bash", Arguments: `{"command":"go test ./parse/..."}`}
		dshSend(t, h, sid, "tool/call", dsh.ToolCall(1, 1, call))
		dshSend(t, h, sid, "tool/result", f.ToolResult(1, 1, call.ID, "ok  parse 0.01s", false))
		calm := dshSend(t, h, sid, "assistant/message", dshAssistantUsage("Reading the lexer.", 1000, 0, 0))
		pressed := dshSend(t, h, sid, "assistant/message", dshAssistantUsage("The parser tests pass now.", 1000, 6500, 500))
		rec := bndAwait(t, h, sid, atoi(t, pressed), "context_pressure")
		if r := gjson.GetBytes(rec, "reason").Str; r != "context_pressure" {
			t.Errorf("format %d: reason %s, want context_pressure\n%s", f, r, rec)
		}
		if n := gjson.GetBytes(rec, "numbers"); n.Get("inputTokens").Int() != 8000 || n.Get("contextWindow").Int() != 10000 {
			t.Errorf("format %d: numbers %s, want inputTokens 8000 (1000 + 6500 + 500) of 10000", f, n.Raw)
		}
		for _, n := range h.RemoteEvents("continuity.boundary") {
			if gjson.GetBytes(n.Args, "0.throughEvent").Str == calm {
				t.Errorf("format %d: the message that read 1000 of 10000 tokens was a boundary: %s", f, n.Args)
			}
		}
		end := dshSend(t, h, sid, "turn/end", dsh.TurnEnd(1, "completed"))
		if rec := bndAwait(t, h, sid, atoi(t, end), "turn_end"); gjson.GetBytes(rec, "reason").Str == "context_pressure" {
			t.Errorf("format %d: the turn's end repeats the pressure already decided\n%s", f, rec)
		}

		// The route changes to a model with a quarter of the window: the
		// 8000 tokens last read press before the next model output.
		dshSend(t, h, sid, "turn/start", dsh.TurnStart(2))
		dshSend(t, h, sid, "user/message", dsh.Prompt("m2", "Now run the whole suite."))
		routed := dshSend(t, h, sid, "request/context", dsh.RequestContext("deepseek", "v4-small", 9000))
		rec = bndAwait(t, h, sid, atoi(t, routed), "context_pressure")
		if n := gjson.GetBytes(rec, "numbers"); n.Get("inputTokens").Int() != 8000 || n.Get("contextWindow").Int() != 9000 {
			t.Errorf("format %d: numbers after the route change %s", f, n.Raw)
		}
	}
}

// TestBoundaryPressureOverDSHStreams replays every recorded DSH stream
// through the binary twice. As recorded (windows of 128k tokens, a few
// hundred read) no event presses. With every request/context's window cut
// to the fewest tokens a message of its stream read, each assistant/message
// with usage after its session's request/context presses, and each announced
// context_pressure decision is through such a message or a request/context.
func TestBoundaryPressureOverDSHStreams(t *testing.T) {
	pressing := 0
	for _, file := range dsh.Files() {
		for _, cut := range []bool{false, true} {
			st, err := dsh.Load(file, dsh.Format4, dshBorn)
			if err != nil {
				t.Fatal(err)
			}
			h := initialized(t, host.Config{}, host.AllCapabilities())
			for sid, hdr := range st.Headers {
				h.SetAgentHeader(sid, hdr, host.StatusRunning)
			}
			read := func(u gjson.Result) int64 {
				return u.Get("inputTokens").Int() + u.Get("cacheReadTokens").Int() + u.Get("cacheWriteTokens").Int()
			}
			window := int64(0) // the fewest tokens a message of the stream read
			for _, fr := range st.Frames {
				if u := fr.Event.Get("data.usage"); fr.Event.Get("type").Str == "assistant/message" && read(u) > 0 && (window == 0 || read(u) < window) {
					window = read(u)
				}
			}
			kinds := map[string]string{} // session/seq → event type
			want := 0                    // pressing events sent
			windowSeen := map[string]bool{}
			firstPress := map[string]int64{} // session → seq of its first pressing event
			for _, fr := range st.Frames {
				line := fr.Line
				typ, seq := fr.Event.Get("type").Str, fr.Event.Get("seq").Raw
				if cut && typ == "request/context" && window > 0 {
					line = withWindow(t, line, window)
				}
				if err := h.SendLine(line); err != nil {
					t.Fatal(err)
				}
				kinds[fr.Session+"/"+seq] = typ
				switch {
				case typ == "request/context":
					windowSeen[fr.Session] = true
				case cut && typ == "assistant/message" && read(fr.Event.Get("data.usage")) > 0 && windowSeen[fr.Session]:
					want++
					if _, ok := firstPress[fr.Session]; !ok {
						firstPress[fr.Session] = fr.Event.Get("seq").Int()
					}
				}
			}
			got := func() (n int) {
				for _, e := range h.RemoteEvents("continuity.boundary") {
					if gjson.GetBytes(e.Args, "0.trigger").Str == "context_pressure" {
						n++
					}
				}
				return n
			}
			deadline := time.Now().Add(30 * time.Second)
			for got() < want && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if !cut && got() != 0 || cut && got() < want {
				t.Errorf("%s (windows cut: %v): %d context_pressure decisions, want %d", file, cut, got(), want)
			}
			for _, e := range h.RemoteEvents("continuity.boundary") {
				if gjson.GetBytes(e.Args, "0.trigger").Str != "context_pressure" {
					continue
				}
				sid, through := gjson.GetBytes(e.Args, "0.agentId").Str, gjson.GetBytes(e.Args, "0.throughEvent").Str
				k := kinds[sid+"/"+through]
				first, pressed := firstPress[sid]
				// A checkpoint that replaced the view before the decision ran
				// makes it cover everything observed (boundary.boundFor).
				if k != "assistant/message" && k != "request/context" && (!pressed || atoi(t, through) < first) {
					t.Errorf("%s: a context_pressure decision through a %q before any pressing event: %s", file, k, e.Args)
				}
			}
			if cut {
				pressing += want
			}
		}
	}
	if pressing == 0 {
		t.Fatal("no recorded stream has an assistant/message with usage after a request/context")
	}
}

// withWindow rewrites a request/context notification's contextWindow.
func withWindow(t *testing.T, line []byte, window int64) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	data := m["params"].(map[string]any)["event"].(map[string]any)["data"].(map[string]any)
	data["contextWindow"] = window
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"contextWindow":`) {
		t.Fatal("no window written")
	}
	return out
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

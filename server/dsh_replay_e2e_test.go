package server_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/internal/syncbuf"
)

// dshBorn is when the replayed live sessions were born: after activation,
// so the creation-time default (on) covers them.
var dshBorn = time.Now().Add(time.Hour).UnixMilli()

// Every recorded DSH stream, in both session formats, goes through the
// real binary exactly as a bridge forwards it (session.event, DSH's
// frames, no header, seq from 0), with agent/request and llm/payload where
// DSH's loop issues them. Every step is admitted, the turn after the
// stream is admitted, tool calls settle (continue_session is not refused
// for unsettled effects), its initiating message is the person's prompt,
// the compaction bracket completes with a filtered summary payload, and
// the plugin's log shows no event that was not applied.
func TestDSHStreamsReplay(t *testing.T) {
	files := dsh.Files()
	if len(files) != 14 {
		t.Fatalf("%d recorded streams, want the 14 of fixtures/dsh/recorded", len(files))
	}
	for _, format := range []dsh.Format{dsh.Format0, dsh.Format4} {
		for _, file := range files {
			t.Run(fmt.Sprintf("format%d/%s", format, strings.TrimSuffix(file, ".jsonl")), func(t *testing.T) {
				st, err := dsh.Load(file, format, dshBorn)
				if err != nil {
					t.Fatal(err)
				}
				dshReplay(t, st)
			})
		}
	}
}

// dshModelOutput is what a step's model call produces first: agent/request
// comes before it.
func dshModelOutput(typ string) bool {
	switch typ {
	case "assistant/chunk", "assistant/message", "reasoning-chunks", "text-chunks", "tool-call-chunks":
		return true
	}
	return false
}

type dshStep struct {
	sid        string
	turn, step int64
}

func dshReplay(t *testing.T, st dsh.Stream) {
	stderr := &syncbuf.Buffer{}
	h := initialized(t, host.Config{Stderr: stderr}, host.AllCapabilities())
	for sid, hdr := range st.Headers {
		h.SetAgentHeader(sid, hdr, host.StatusRunning)
	}
	body := payloadgen.Generate(payloadgen.Spec{Seed: 13, Size: 64 << 10, Reasoning: 4, ToolOutputBytes: 256}).Body
	const model = "gpt-5.4"
	requested := map[dshStep]bool{}
	lastTurn := map[string]int64{}
	person := map[string]string{} // the eventId of the person's latest prompt
	compactions := map[string]string{}
	for _, fr := range st.Frames {
		ev := fr.Event
		typ := ev.Get("type").Str
		at := dshStep{fr.Session, ev.Get("data.turn").Int(), ev.Get("data.step").Int()}
		if fr.Session != "" && dshModelOutput(typ) && !requested[at] {
			requested[at] = true
			rid := fmt.Sprintf("req_%s_%d_%d", at.sid, at.turn, at.step)
			res, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: at.sid, Turn: int(at.turn), Step: int(at.step),
				RequestID: rid, AccountID: "acct-A", Config: host.LLMConfig{Provider: "github-copilot-preview", Model: model}})
			if err != nil || res.Admission == nil {
				t.Fatalf("%s turn %d step %d not admitted: %v", at.sid, at.turn, at.step, err)
			}
			// DSH leaves a chat call's purpose unset: it takes part.
			pay, err := h.Payload(ctxT(t), host.PayloadParams{RequestID: rid, SessionID: at.sid, Turn: int(at.turn), Step: int(at.step),
				Provider: "github-copilot-preview", Model: model, Payload: body})
			if err != nil || res.Admission.Enabled == (pay.Outcome == "native") {
				t.Fatalf("%s turn %d step %d chat payload: %s (admission %+v) %v", at.sid, at.turn, at.step, pay.Outcome, res.Admission, err)
			}
		}
		if err := h.SendLine(fr.Line); err != nil {
			t.Fatal(err)
		}
		switch typ {
		case "turn/start":
			lastTurn[fr.Session] = ev.Get("data.turn").Int()
		case "user/message":
			if ev.Get("data.source.kind").Str == "user" {
				person[fr.Session] = ev.Get("seq").Raw
			}
		case "compaction/start":
			cid := ev.Get("data.compactionId").Str
			compactions[fr.Session] = cid
			res, err := h.Payload(ctxT(t), host.PayloadParams{RequestID: "sum-" + cid, SessionID: fr.Session, Turn: int(ev.Get("data.turn").Int()), Step: 1,
				Provider: "github-copilot-preview", Model: model, Purpose: "compaction", CompactionID: cid, Payload: body})
			if err != nil || res.Outcome != "filtered" || res.Omitted.Items != 4 {
				t.Fatalf("summary payload: %s %+v %v", res.Outcome, res.Omitted, err)
			}
		}
	}
	for _, sid := range st.Sessions {
		next := lastTurn[sid] + 1
		rid := fmt.Sprintf("req_%s_next", sid)
		if _, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: sid, Turn: int(next), Step: 1, RequestID: rid,
			AccountID: "acct-A", Config: host.LLMConfig{Provider: "github-copilot-preview", Model: model}}); err != nil {
			t.Fatalf("%s: the turn after the stream (%d) is not admitted: %v", sid, next, err)
		}
		if cid := compactions[sid]; cid != "" {
			v := dshView(t, h, sid)
			if gjson.GetBytes(v, "compaction.id").Str != cid || gjson.GetBytes(v, "compaction.state").Str != "completed" {
				t.Fatalf("%s compaction: %s", sid, v)
			}
		}
		if person[sid] == "" {
			continue // a child whose only prompt came from its parent
		}
		res := contCall(t, h, sid, "call-cont-"+sid, "continue_session", map[string]any{
			"reason": "topic_change", "title": "Carry on",
			"handoff": map[string]any{"purpose": "carry on", "currentRequest": "carry on"},
			"sources": []any{map[string]any{"kind": "session_events", "sessionId": sid, "fromEventId": "0",
				"toEventId": person[sid], "relevance": "the request so far"}}})
		var out contContinued
		contOK(t, "continue_session", res, &out)
		m := contRemote(t, h, "manifest", map[string]any{"manifestId": out.ManifestID})
		if got := gjson.GetBytes(m, "initiatingEvent.eventId").Str; got != person[sid] {
			t.Fatalf("%s: initiating event %s, want the person's prompt %s", sid, got, person[sid])
		}
		// DSH's first event is "0" in recall too, exactly as forwarded.
		rec := contCall(t, h, out.SuccessorID, "call-recall-"+sid, "session_recall", map[string]any{"sessionId": sid, "eventId": "0"})
		var got struct {
			Events []struct {
				EventID string `json:"eventId"`
				Type    string `json:"type"`
			} `json:"events"`
		}
		contOK(t, "session_recall", rec, &got)
		if len(got.Events) != 1 || got.Events[0].EventID != "0" || got.Events[0].Type != st.Frames[dshFirst(st, sid)].Event.Get("type").Str {
			t.Fatalf("%s: recall of event 0: %+v", sid, got.Events)
		}
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		for _, bad := range []string{"session event not applied", "invalid notification", "effect skipped", "header ignored"} {
			if strings.Contains(line, bad) {
				t.Fatalf("the plugin dropped part of an event: %s", line)
			}
		}
	}
}

// A manual compaction between turns is turn null, and DSH's session
// title call does not take part.
func TestDSHPayloadPurposesAndNullTurn(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	const sid = "s-purposes"
	h.SetAgentHeader(sid, dsh.Format4.Header(sid, &dshBorn, false, ""), host.StatusIdle)
	body := payloadgen.Generate(payloadgen.Spec{Seed: 5, Size: 32 << 10, Reasoning: 2, ToolOutputBytes: 128}).Body
	frame := func(seq int, typ, data string) []byte {
		return []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"` + sid + `","event":{"type":"` + typ +
			`","seq":` + fmt.Sprint(seq) + `,"time":0,"data":` + data + `}}}`)
	}
	if err := h.SendLine(frame(0, "compaction/start", `{"compactionId":"m1","turn":null}`)); err != nil {
		t.Fatal(err)
	}
	params := func(purpose string) []byte {
		return []byte(`{"requestId":"r-` + purpose + `","sessionId":"` + sid + `","turn":null,"step":1,"provider":"github-copilot-preview",` +
			`"model":"gpt-5.4","purpose":"` + purpose + `","compactionId":"m1","payload":` + string(body) + `}`)
	}
	res, rerr, err := h.CallRaw(ctxT(t), "llm/payload", params("compaction"))
	if err != nil || rerr != nil || gjson.GetBytes(res, "outcome").Str != "filtered" {
		t.Fatalf("manual compaction with turn null: %s %v %v", gjson.GetBytes(res, "outcome").Str, rerr, err)
	}
	res, rerr, err = h.CallRaw(ctxT(t), "llm/payload", params("session-title"))
	if err != nil || rerr != nil || gjson.GetBytes(res, "outcome").Str != "native" {
		t.Fatalf("session title: %s %v %v", gjson.GetBytes(res, "outcome").Str, rerr, err)
	}
}

// dshFirst is the index of sid's first event frame.
func dshFirst(st dsh.Stream, sid string) int {
	for i, fr := range st.Frames {
		if fr.Session == sid {
			return i
		}
	}
	return -1
}

// dshView reads githubCopilotSessionContinuation.get for sid.
func dshView(t *testing.T, h *host.Host, sid string) []byte {
	t.Helper()
	res, err := h.RemoteInvoke(ctxT(t), "githubCopilotSessionContinuation", "get", map[string]any{"agentId": sid})
	if err != nil || !res.OK {
		t.Fatalf("get: %v %+v", err, res.Error)
	}
	return res.Value
}

// A member a feature needs that does not read is logged with its reason
// and skips only that effect: the event is not dropped, later events
// apply, and a frame whose envelope is wrong is named in the log too.
func TestDSHMalformedMemberSkipsOnlyItsEffect(t *testing.T) {
	stderr := &syncbuf.Buffer{}
	h := initialized(t, host.Config{Stderr: stderr}, host.AllCapabilities())
	const sid = "s-malformed"
	h.SetAgentHeader(sid, dsh.Format4.Header(sid, &dshBorn, false, ""), host.StatusRunning)
	send := func(seq int, typ, data string) {
		t.Helper()
		line := `{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"` + sid + `","event":{"type":"` + typ +
			`","seq":` + fmt.Sprint(seq) + `,"time":0,"data":` + data + `}}}`
		if err := h.SendLine([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	admit := func(turn int) error {
		_, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: sid, Turn: turn, Step: 1, RequestID: fmt.Sprintf("r%d", turn),
			Config: host.LLMConfig{Provider: "github-copilot-preview", Model: "gpt-5.4"}})
		return err
	}
	send(0, "turn/start", `{"turn":1}`)
	if err := admit(1); err != nil {
		t.Fatal(err)
	}
	send(1, "turn/end", `{"turn":"one","reason":{"kind":"completed"}}`)
	if rerr := turnsXRPC(t, admit(2)); dataCode(rerr) != "COPILOT_CONTINUATION_TURN_UNSETTLED" {
		t.Fatalf("a turn/end whose turn does not read ended a turn: %v", rerr)
	}
	if err := h.SendLine([]byte(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"` + sid + `","event":{"type":"turn/end","seq":-2}}}`)); err != nil {
		t.Fatal(err)
	}
	send(2, "turn/end", `{"turn":1,"reason":{"kind":"forked"}}`)
	if err := admit(2); err != nil {
		t.Fatalf("the valid turn/end after a malformed one was not applied: %v", err)
	}
	log := stderr.String()
	for _, want := range []string{`"reason":"turn/end: data.turn is not a non-negative integer"`, `"reason":"event.seq is not an integer from 0"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not name %s:\n%s", want, log)
		}
	}
}

// DSH has no account event: agent/request.accountId is all the plugin
// learns. A later process on the same data directory still pauses an
// account switch while the policy is off, and neither the logs nor the
// database hold the account id itself.
func TestDSHAccountKeptAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	const sid, account = "s-restart", "acct-raw-7f3a"
	born := time.Now().Add(-24 * time.Hour).UnixMilli() // before activation: the default never covers it
	stderr := &syncbuf.Buffer{}
	start := func() *host.Host {
		h := initialized(t, host.Config{DataDir: dir, Stderr: stderr}, host.AllCapabilities())
		h.SetAgentHeader(sid, dsh.Format0.Header(sid, &born, false, ""), host.StatusIdle)
		return h
	}
	h := start()
	for seq, ev := range []string{`"type":"turn/start","seq":0,"time":0,"data":{"turn":1}`, `"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}`} {
		if err := h.SendLine([]byte(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"` + sid + `","event":{` + ev + `}}}`)); err != nil {
			t.Fatal(seq, err)
		}
	}
	res, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: sid, Turn: 1, Step: 1, RequestID: "r1", AccountID: account,
		Config: host.LLMConfig{Provider: "github-copilot-preview", Model: "gpt-5.4"}})
	if err != nil || res.Admission == nil || res.Admission.Enabled {
		t.Fatalf("admission: %+v %v", res.Admission, err)
	}
	h.Close()
	h = start()
	ask := func(acct string) (bool, string) {
		r, err := h.RemoteInvoke(ctxT(t), "continuity", "accountSwitch", map[string]any{"agentId": sid, "accountId": acct})
		if err != nil || !r.OK {
			t.Fatalf("accountSwitch: %v %+v", err, r.Error)
		}
		return gjson.GetBytes(r.Value, "pause").Bool(), gjson.GetBytes(r.Value, "reason").Str
	}
	if pause, reason := ask(account); pause || reason != "sameAccount" {
		t.Fatalf("the same account after a restart: pause %v (%s)", pause, reason)
	}
	if pause, _ := ask("acct-other"); !pause {
		t.Fatal("an account switch after a restart did not pause while the policy is off")
	}
	h.Close()
	db, err := os.ReadFile(filepath.Join(dir, "continuity.db"))
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(filepath.Join(dir, "continuity.db-wal"))
	if bytes.Contains(db, []byte(account)) || bytes.Contains(wal, []byte(account)) || strings.Contains(stderr.String(), account) {
		t.Fatal("the raw account id was stored or logged")
	}
}

// A 17 MiB tool/result, as a DSH tool can produce, is taken in whole: it
// settles its call (continue_session is not refused for it), and nothing
// of it reaches the log. continue_session itself, named as DSH's MCP
// client names it, is not an unsettled effect.
func TestDSHLargeToolResultSettlesItsCall(t *testing.T) {
	stderr := &syncbuf.Buffer{}
	h := initialized(t, host.Config{Stderr: stderr}, host.AllCapabilities())
	const sid = "s-large"
	h.SetAgentHeader(sid, dsh.Format4.Header(sid, &dshBorn, false, ""), host.StatusRunning)
	out := strings.Repeat("ok  \tpkg/sub\t0.1s TOOL-OUTPUT-MARKER\n", (17<<20)/36)
	events := []struct {
		typ  string
		data any
	}{
		{"turn/start", dsh.TurnStart(1)},
		{"step/start", dsh.Step(1, 1)},
		{"user/message", dsh.Prompt("m1", "run the tests")},
		{"assistant/message", dsh.Assistant(1, 1, "github-copilot-preview", "gpt-5.4", "", []dsh.Call{{ID: "call_1", Name: "bash", Arguments: `{"command":"go test ./..."}`}}, 10)},
		{"tool/call", dsh.ToolCall(1, 1, dsh.Call{ID: "call_1", Name: "bash", Arguments: `{"command":"go test ./..."}`})},
		{"tool/result", dsh.Format4.ToolResult(1, 1, "call_1", out, false)},
		{"step/end", dsh.Step(1, 1)},
		// The model then calls continue_session through DSH's MCP client:
		// that call is the continuation itself, never an unsettled effect.
		{"step/start", dsh.Step(1, 2)},
		{"assistant/message", dsh.Assistant(1, 2, "github-copilot-preview", "gpt-5.4", "", []dsh.Call{{ID: "call-cont", Name: "mcp__continuity__continue_session", Arguments: `{}`}}, 10)},
		{"tool/call", dsh.ToolCall(1, 2, dsh.Call{ID: "call-cont", Name: "mcp__continuity__continue_session", Arguments: `{}`})},
	}
	for i, ev := range events {
		e := host.Ev(ev.typ, ev.data)
		e.Seq = int64(i)
		if err := h.Forward(sid, e); err != nil {
			t.Fatal(err)
		}
	}
	res := contCall(t, h, sid, "call-cont", "continue_session", map[string]any{
		"reason": "topic_change", "title": "Carry on", "handoff": map[string]any{"purpose": "carry on", "currentRequest": "carry on"},
		"sources": []any{map[string]any{"kind": "session_events", "sessionId": sid, "fromEventId": "2", "toEventId": "2", "relevance": "the request"}}})
	var cont contContinued
	contOK(t, "continue_session", res, &cont)
	if log := stderr.String(); strings.Contains(log, "TOOL-OUTPUT-MARKER") || strings.Contains(log, "not applied") || strings.Contains(log, "skipped") {
		t.Fatalf("the log shows the result or a dropped effect:\n%.2000s", log)
	}
}

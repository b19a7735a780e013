package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// dshWitness is one tool/result of a recorded stream as the test reads it
// directly from the frames: the tool its call named and whether it failed.
type dshWitness struct {
	tool   string
	failed bool
}

// TestBoundaryDecisionsOverDSHStreams (issue 16): every recorded DSH
// stream goes through the real binary unchanged, with no annotations and
// no host conventions. After each turn/end the continuity.boundary Remote
// answers with that turn's decision (its throughEventId is the turn/end),
// each decision is announced by a continuity.boundary remote event, and
// every witness a record names is real: a kept tool_result is a tool/result
// of the stream that succeeded, named by the tool its tool/call named; an
// error, kept or dropped, is one that failed; the task is the person's
// first prompt (source.kind "user"), never injected context.
func TestBoundaryDecisionsOverDSHStreams(t *testing.T) {
	var records []string
	for _, file := range dsh.Files() {
		t.Run(strings.TrimSuffix(file, ".jsonl"), func(t *testing.T) {
			st, err := dsh.Load(file, dsh.Format4, dshBorn)
			if err != nil {
				t.Fatal(err)
			}
			h := initialized(t, host.Config{}, host.AllCapabilities())
			for sid, hdr := range st.Headers {
				h.SetAgentHeader(sid, hdr, host.StatusRunning)
			}
			tools := map[string]string{}            // call id → tool name
			results := map[string]dshWitness{}      // session/seq of a tool/result → what it shows
			prompts := map[string]map[string]bool{} // session → seqs of the person's prompts
			turnEnds := 0                           // boundaries: turn/end and compaction/start
			for _, fr := range st.Frames {
				if err := h.SendLine(fr.Line); err != nil {
					t.Fatal(err)
				}
				ev, sid := fr.Event, fr.Session
				seq := ev.Get("seq").Raw
				switch ev.Get("type").Str {
				case "tool/call":
					tools[ev.Get("data.callId").Str] = ev.Get("data.name").Str
				case "tool/result":
					failed := ev.Get("data.error").Exists() || ev.Get("data.message.isError").Bool() || ev.Get("data.message.content.0.isError").Bool()
					results[sid+"/"+seq] = dshWitness{tools[ev.Get("data.message.source.callId").Str], failed}
				case "user/message":
					if ev.Get("data.source.kind").Str == "user" {
						if prompts[sid] == nil {
							prompts[sid] = map[string]bool{}
						}
						prompts[sid][seq] = true
					}
				case "compaction/start":
					turnEnds++ // a boundary too, announced like a turn's
				case "turn/end":
					if sid == "" {
						continue
					}
					turnEnds++
					v := contRemote(t, h, "boundary", map[string]any{"agentId": sid})
					if got := gjson.GetBytes(v, "throughEventId").Str; got != seq {
						t.Fatalf("%s: the decision read right after turn/end %s covers %s", sid, seq, got)
					}
					checkDSHRecord(t, sid, v, results, prompts[sid])
					records = append(records, fmt.Sprintf("%s %s: %s", file, sid, dshRecordSummary(v)))
				}
			}
			deadline := time.Now().Add(30 * time.Second)
			for len(h.RemoteEvents("continuity.boundary")) < turnEnds && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if got := len(h.RemoteEvents("continuity.boundary")); got != turnEnds {
				t.Errorf("%d continuity.boundary events for %d boundaries", got, turnEnds)
			}
		})
	}
	keptTool := 0
	for _, r := range records {
		if strings.Contains(r, "kept tool_result") {
			keptTool++
		}
		t.Log(r)
	}
	if keptTool == 0 {
		t.Error("no decision over the recorded streams kept a tool result")
	}
}

// checkDSHRecord checks that every item a record names is what the stream
// shows at that event.
func checkDSHRecord(t *testing.T, sid string, v json.RawMessage, results map[string]dshWitness, prompts map[string]bool) {
	t.Helper()
	if gjson.GetBytes(v, "reason").Str == "" {
		t.Errorf("%s: a decision without a reason: %s", sid, v)
	}
	if pin := gjson.GetBytes(v, "pin"); pin.Get("recoverable").Bool() && !prompts[pin.Get("eventId").Str] {
		t.Errorf("%s: the pin names event %s, which is not the person's prompt", sid, pin.Get("eventId").Str)
	}
	for _, list := range []string{"kept", "dropped"} {
		for _, it := range gjson.GetBytes(v, list).Array() {
			w, isResult := results[sid+"/"+it.Get("eventId").Str]
			switch it.Get("kind").Str {
			case "tool_result":
				if !isResult || w.failed || !strings.HasPrefix(it.Get("subject").Str, w.tool) {
					t.Errorf("%s: %s tool_result %s is not a successful result of %q", sid, list, it.Raw, w.tool)
				}
			case "error":
				if !isResult || !w.failed {
					t.Errorf("%s: %s error %s is not a failed tool result", sid, list, it.Raw)
				}
			case "request":
				if !prompts[it.Get("eventId").Str] {
					t.Errorf("%s: %s request %s is not the person's prompt", sid, list, it.Raw)
				}
			}
		}
	}
}

// dshRecordSummary quotes a decision the way the report does.
func dshRecordSummary(v json.RawMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (through event %s)", gjson.GetBytes(v, "decision").Str, gjson.GetBytes(v, "reason").Str, gjson.GetBytes(v, "throughEventId").Str)
	for _, list := range []string{"kept", "dropped"} {
		for _, it := range gjson.GetBytes(v, list).Array() {
			fmt.Fprintf(&b, "; %s %s %q at %s (%s)", list, it.Get("kind").Str, it.Get("subject").Str, it.Get("eventId").Str, it.Get("why").Str)
		}
	}
	fmt.Fprintf(&b, "; numbers %s", gjson.GetBytes(v, "numbers").Raw)
	return b.String()
}

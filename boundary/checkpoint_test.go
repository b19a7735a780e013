package boundary

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/hostapi"
)

// checkpointSession is a DSH session in format f whose compaction
// checkpoint (seq 8) has the given surfaceOp: two failed tool calls, each
// followed by narration, the first pair (seqs 2–4) inside the range a
// replace names.
func checkpointSession(f dsh.Format, surfaceOp json.RawMessage) []hostapi.Event {
	a := dsh.Call{ID: "call_a", Name: "bash", Arguments: `{"command":"go test ./a"}`}
	b := dsh.Call{ID: "call_b", Name: "bash", Arguments: `{"command":"go vet ./b"}`}
	cp := ev(8, EventUserMessage, f.Checkpoint("m8", "cmp1", "Summary: a was looked at."))
	cp.SurfaceOp = surfaceOp
	return []hostapi.Event{
		ev(0, EventTurnStart, dsh.TurnStart(1)),
		ev(1, EventUserMessage, dsh.Prompt("m1", parseTask)),
		ev(2, EventToolCall, dsh.ToolCall(1, 1, a)),
		ev(3, EventToolResult, f.ToolResult(1, 1, a.ID, "FAIL a_test.go:3", true)),
		ev(4, EventAssistantMessage, dsh.Assistant(1, 1, "p", "m", strings.Repeat("Looking at a. ", 40), nil, 10)),
		ev(5, EventToolCall, dsh.ToolCall(1, 2, b)),
		ev(6, EventToolResult, f.ToolResult(1, 2, b.ID, "vet: unused x", true)),
		ev(7, EventAssistantMessage, dsh.Assistant(1, 2, "p", "m", "Now b.", nil, 10)),
		cp,
		ev(9, EventTurnEnd, dsh.TurnEnd(1, "completed")),
	}
}

// A compaction checkpoint shadows only the range its surfaceOp replaces,
// in both formats: the events after the range stay in the view (the
// unanswered vet failure is still the state the next action needs, the
// later narration still costs tokens), the replaced ones are gone. A
// checkpoint that names no range ("append", or none) replaces everything
// before it.
func TestCheckpointShadowsOnlyItsRange(t *testing.T) {
	for _, f := range []dsh.Format{dsh.Format0, dsh.Format4} {
		for _, c := range []struct {
			name  string
			op    json.RawMessage
			after bool // the events after the range stay in view
		}{
			{"replace 2-4", f.Replace(2, 4), true},
			{"append", json.RawMessage(`"append"`), false},
			{"none", nil, false},
		} {
			s := newService(t, openDB(t, t.TempDir()), Options{})
			for _, e := range checkpointSession(f, c.op) {
				s.Observe(sid, e)
			}
			d, err := s.Decide(context.Background(), sid, TurnEnd)
			if err != nil {
				t.Fatal(err)
			}
			all := append(refs(d.Kept), refs(d.Dropped)...)
			seen := map[string]bool{}
			for _, r := range append(d.Kept, d.Dropped...) {
				seen[r.EventID] = true
			}
			if seen["3"] || seen["4"] {
				t.Errorf("format %d %s: a replaced event is still in view: %v", f, c.name, all)
			}
			if !contains(refs(d.Kept), "checkpoint:cmp1:stable@8") {
				t.Errorf("format %d %s: the checkpoint is not kept: %v", f, c.name, all)
			}
			vet := contains(refs(d.Kept), `error:bash {"command":"go vet ./b"}:needed_for_next_action@6`)
			narration := contains(refs(d.Dropped), "narration::narration@7")
			if vet != c.after || narration != c.after {
				t.Errorf("format %d %s: events after the range in view = (vet %v, narration %v), want %v: %v",
					f, c.name, vet, narration, c.after, all)
			}
		}
	}
}

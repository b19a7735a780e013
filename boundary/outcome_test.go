package boundary

import (
	"context"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/hostapi"
)

// outcomeTurn is one DSH turn from seq: a test run whose result failed or
// not, then the agent's answer (with a tool-call block when calls), then
// turn/end of kind end. It returns the events and the answer's seq.
func outcomeTurn(seq int64, turn int, failed bool, answer string, withCall bool, end string) ([]hostapi.Event, int64) {
	c := dsh.Call{ID: "call_t" + eventID(seq), Name: "bash", Arguments: `{"command":"go test ./parse/..."}`}
	var calls []dsh.Call
	if withCall {
		calls = []dsh.Call{{ID: "call_more" + eventID(seq), Name: "bash", Arguments: `{"command":"ls"}`}}
	}
	evs := []hostapi.Event{
		ev(seq, EventTurnStart, dsh.TurnStart(turn)),
		ev(seq+1, EventToolCall, dsh.ToolCall(turn, 1, c)),
		ev(seq+2, EventToolResult, dsh.Format4.ToolResult(turn, 1, c.ID, "ok  parse 0.01s", failed)),
		ev(seq+3, EventAssistantMessage, dsh.Assistant(turn, 2, "p", "m", answer, calls, 10)),
		ev(seq+4, EventTurnEnd, dsh.TurnEnd(turn, end)),
	}
	return evs, seq + 3
}

// The agent's final answer is the turn's confirmed outcome only when the
// turn completed, its tool results succeeded and the answer calls no tool;
// otherwise it stays narration. The outcome is kept, named at the answer's
// event, and carried in the query among the confirmed effects; a later
// completed turn's outcome supersedes it.
func TestFinalAnswerOfACompletedTurnIsItsOutcome(t *testing.T) {
	const answer = "The parser tests pass: go test ./parse/... is ok."
	for _, c := range []struct {
		name     string
		failed   bool
		withCall bool
		end      string
		outcome  bool
	}{
		{"completed, results succeeded", false, false, "completed", true},
		{"the test run failed", true, false, "completed", false},
		{"the answer calls another tool", false, true, "completed", false},
		{"aborted", false, false, "aborted", false},
		{"max tokens", false, false, "max-tokens", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newService(t, openDB(t, t.TempDir()), Options{})
			s.Observe(sid, ev(0, EventUserMessage, dsh.Prompt("m0", parseTask)))
			evs, at := outcomeTurn(1, 1, c.failed, answer, c.withCall, c.end)
			for _, e := range evs {
				s.Observe(sid, e)
			}
			d, err := s.Decide(context.Background(), sid, TurnEnd)
			if err != nil {
				t.Fatal(err)
			}
			kept, dropped := refs(d.Kept), refs(d.Dropped)
			if got := contains(kept, "outcome::stable@"+eventID(at)); got != c.outcome {
				t.Errorf("outcome kept = %v, want %v: kept %v dropped %v", got, c.outcome, kept, dropped)
			}
			if got := contains(dropped, "narration::narration@"+eventID(at)); got == c.outcome {
				t.Errorf("narration dropped = %v, want %v: %v", got, !c.outcome, dropped)
			}
		})
	}

	// Two completed turns: each turn's outcome is a witness of that turn
	// (issue 28 item 5), so the reseed's query states both among the
	// confirmed effects. (The prompt is the
	// session's event 0, as DSH numbers them: a pin there verifies.)
	s := newService(t, openDB(t, t.TempDir()), Options{})
	s.Observe(sid, ev(0, EventUserMessage, dsh.Prompt("m0", parseTask)))
	first, at1 := outcomeTurn(1, 1, false, "Step one is done: the lexer is fixed.", false, "completed")
	second, at2 := outcomeTurn(6, 2, false, "Step two is done: the parser tests pass.", false, "completed")
	for _, e := range append(first, second...) {
		s.Observe(sid, e)
	}
	// Retained history large enough that the query is the smaller one.
	s.Observe(sid, ev(11, EventUserMessage, dsh.RuntimeContext("m11", strings.Repeat("runtime context ", 4000))))
	d, err := s.Decide(context.Background(), sid, ContextPressure)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(refs(d.Kept), "outcome::stable@"+eventID(at2)) || !contains(refs(d.Kept), "outcome::stable@"+eventID(at1)) {
		t.Fatalf("kept %v dropped %v", refs(d.Kept), refs(d.Dropped))
	}
	if d.Reseed == nil || d.Reseed.Projection == nil {
		t.Fatalf("no projection: %+v (%s %s)", d.Reseed, d.Decision, d.Reason)
	}
	q := d.Reseed.Projection.Query
	if !strings.Contains(q, "outcome of a completed turn (event "+eventID(at2)+"): Step two is done: the parser tests pass.") ||
		!strings.Contains(q, "outcome of a completed turn (event "+eventID(at1)+"): Step one is done: the lexer is fixed.") {
		t.Errorf("query:\n%s", q)
	}
}

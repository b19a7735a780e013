package boundary

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/hostapi"
)

func todo(seq int64, data string) hostapi.Event {
	return hostapi.Event{Type: EventTodoWrite, Seq: seq, Data: json.RawMessage(data)}
}

// TestTodoWriteIsThePlan (issue 28 item 6): DSH's todo/write is read as the
// plan (step ids, or positions, and statuses); the latest one after the
// pin is kept and traced to the pin; one before the pin answers an
// earlier query; an unreadable list is counted, never guessed at; step 7
// fails when the plan's header does not name the pin.
func TestTodoWriteIsThePlan(t *testing.T) {
	s := newService(t, openDB(t, t.TempDir()), Options{})
	for _, e := range []hostapi.Event{
		ev(0, EventTurnStart, dsh.TurnStart(1)),
		ev(1, EventUserMessage, dsh.Prompt("m1", "Ship the exporter.")),
		todo(2, `{"todos":[{"id":"a","content":"Write it","status":"in_progress"}]}`),
		todo(3, `{"todos":[{"content":"Write it","status":"completed"},{"content":"Test it"}]}`),
		todo(4, `{"todos":"not a list"}`),
		ev(5, EventTurnEnd, dsh.TurnEnd(1, "completed")),
	} {
		s.Observe(sid, e)
	}
	d, err := s.Decide(context.Background(), sid, TurnEnd)
	if err != nil {
		t.Fatal(err)
	}
	if d.Plan == nil || d.Plan.EventID != "3" || d.Plan.PinDigest != *d.Pin.Digest || len(d.Plan.Steps) != 2 ||
		d.Plan.Steps[0] != (PlanStep{"1", "completed"}) || d.Plan.Steps[1] != (PlanStep{"2", "pending"}) {
		t.Fatalf("plan %+v", d.Plan)
	}
	if !contains(refs(d.Kept), "plan::current_plan@3") || !contains(refs(d.Dropped), "plan::superseded@2") {
		t.Errorf("kept %v dropped %v", refs(d.Kept), refs(d.Dropped))
	}
	if d.Numbers.UnreadableEvents != 1 {
		t.Errorf("unreadable %d, want the list that is not a list", d.Numbers.UnreadableEvents)
	}

	pin := NewPin(1, "Ship the exporter.", SourceFirstUserMessage, "", sid, epoch)
	plan := &Item{Seq: 3, Kind: KindPlan, Text: "- [pending] 1: Test it\n"}
	c := current{pin: pin, plan: plan, next: &Item{Seq: 3, Kind: KindNextAction, Text: "Test it."}}
	b := buildQuery(c)
	if p := verifyState(b.query, b, c); len(p) != 0 {
		t.Fatalf("problems %v in\n%s", p, b.query)
	}
	other := strings.Replace(b.query, "pin "+pin.Digest+"]", "pin sha256:"+strings.Repeat("0", 64)+"]", 1)
	if p := verifyState(other, b, c); !contains(p, ProblemPlanNotTraced) {
		t.Errorf("a plan naming another pin: problems %v", p)
	}
}

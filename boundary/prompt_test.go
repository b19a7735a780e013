package boundary

import (
	"context"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/hostapi"
)

// replacementSession is a DSH session whose person narrows the task in
// turn 2 and replaces it in turn 3.
var replacementSession = []hostapi.Event{
	ev(0, EventTurnStart, dsh.TurnStart(1)),
	ev(1, EventUserMessage, dsh.Prompt("m1", "Make the login tests pass.")),
	ev(2, EventTurnEnd, dsh.TurnEnd(1, "completed")),
	ev(3, EventTurnStart, dsh.TurnStart(2)),
	ev(4, EventUserMessage, dsh.Prompt("m4", "Only touch files under auth/.")),
	ev(5, EventTurnEnd, dsh.TurnEnd(2, "completed")),
	ev(6, EventTurnStart, dsh.TurnStart(3)),
	ev(7, EventUserMessage, dsh.Prompt("m7", "Forget the login test. Write the Q3 release notes instead.")),
	ev(8, EventTurnEnd, dsh.TurnEnd(3, "completed")),
}

// TestReplacedInWordsChangesThePin (issue 28 item 8): a narrowing is a
// constraint of the same pin; a replacement pins its message at the next
// boundary (task_changed), survives a restart (the restarted service,
// re-reading the session, does not re-pin or report a change again), and
// a later pin_task of the same turn stays authoritative.
func TestReplacedInWordsChangesThePin(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newService(t, openDB(t, dir), Options{})
	decideAt := func(s *Service, through int64) Decision {
		for _, e := range replacementSession {
			if e.Seq <= through {
				s.Observe(sid, e)
			}
		}
		d, err := s.Decide(ctx, sid, TurnEnd)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	decideAt(s, 2)
	d := decideAt(s, 5)
	if !contains(refs(d.Kept), "constraint:person:stable@4") || d.Decision != Append || d.Reason != ReasonTaskSharpened {
		t.Fatalf("narrowing: %s %s, kept %v", d.Decision, d.Reason, refs(d.Kept))
	}
	d = decideAt(s, 8)
	if d.Reason != ReasonTaskChanged || d.Pin.Source != SourceReplacement || *d.Pin.EventID != "7" || d.Pin.Reason != ReasonReplacedInWords {
		t.Fatalf("replacement: %s %s pin %+v", d.Decision, d.Reason, d.Pin)
	}
	if !contains(refs(d.Dropped), "constraint:person:before_pin@4") {
		t.Errorf("the old task's constraint is not before the new pin: %v", refs(d.Dropped))
	}
	if q := d.Reseed.Projection.Query; !strings.Contains(q, "Forget the login test. Write the Q3 release notes instead.") || strings.Contains(q, "auth/") {
		t.Errorf("query:\n%s", q)
	}

	// A restart that re-reads the whole session keeps the pin.
	s2 := newService(t, openDB(t, dir), Options{Sessions: &fakeSessions{events: replacementSession}})
	s2.Observe(sid, ev(9, EventTurnStart, dsh.TurnStart(4)))
	s2.Observe(sid, ev(10, EventTurnEnd, dsh.TurnEnd(4, "completed")))
	d2, err := s2.Decide(ctx, sid, TurnEnd)
	if err != nil {
		t.Fatal(err)
	}
	if *d2.Pin.Digest != *d.Pin.Digest || d2.Reason == ReasonTaskChanged || d2.Pin.Source != SourceReplacement {
		t.Errorf("after a restart: %s %s pin %+v", d2.Decision, d2.Reason, d2.Pin)
	}

	// pin_task restating the same turn's task replaces the detected pin.
	p, err := s2.PinTask(ctx, sid, 7, "Write the Q3 release notes.", "the person replaced the login task")
	if err != nil {
		t.Fatal(err)
	}
	s2.Observe(sid, ev(11, EventTurnEnd, dsh.TurnEnd(4, "completed")))
	d3, err := s2.Decide(ctx, sid, TurnEnd)
	if err != nil {
		t.Fatal(err)
	}
	if *d3.Pin.Digest != p.Digest || d3.Pin.Source != SourcePinTask || d3.Reason != ReasonTaskChanged {
		t.Errorf("after pin_task: %s %s pin %+v", d3.Decision, d3.Reason, d3.Pin)
	}
}

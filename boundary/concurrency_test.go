package boundary

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// TestConcurrentSessions observes and decides several sessions at once; run
// with -race it shows the per-session state is guarded.
func TestConcurrentSessions(t *testing.T) {
	ctx := context.Background()
	s := newService(t, openDB(t, t.TempDir()), Options{})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		id := fmt.Sprintf("session-%d", i)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for _, e := range firstTurn.events {
				s.Observe(id, e)
			}
			for seq := int64(5); seq < 40; seq++ {
				s.Observe(id, testRun(seq, "pkg/parse", seq%2 == 0, "run", 100))
			}
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				if _, err := s.Decide(ctx, id, TurnEnd); err != nil {
					t.Error(err, err.(*diag.Error).Data)
				}
			}
		}()
	}
	wg.Wait()
	// The last decision covers everything observed: a pressure trigger
	// without a usage event is bounded by no boundary event (a TurnEnd here
	// would stop at turn/end 4 if no earlier decision had covered it).
	for i := 0; i < 4; i++ {
		d, err := s.Decide(ctx, fmt.Sprintf("session-%d", i), ContextPressure)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Pin.Recoverable || d.ThroughEvent != "39" {
			t.Errorf("session-%d: pin %+v through %s", i, d.Pin, d.ThroughEvent)
		}
	}
}

// TestDecisionThroughEventZero: a session whose only event is seq 0 is
// decided through event "0"; the record must not read as though no event
// had been seen (a front then says continuity has not decided).
func TestDecisionThroughEventZero(t *testing.T) {
	s := newService(t, openDB(t, t.TempDir()), Options{})
	s.Observe("s0", user(0, "fix the parser"))
	d, err := s.Decide(context.Background(), "s0", ContextPressure)
	if err != nil {
		t.Fatal(err)
	}
	if d.ThroughEvent != "0" {
		t.Fatalf("through %q, want \"0\"", d.ThroughEvent)
	}
	empty, err := s.Decide(context.Background(), "none", ContextPressure)
	if err != nil {
		t.Fatal(err)
	}
	if empty.ThroughEvent != "" {
		t.Fatalf("a session with no events is decided through %q, want none", empty.ThroughEvent)
	}
}

package boundary

import (
	"context"
	"testing"

	"github.com/continuity-dev/continuity/hostapi"
)

// TestQueuedDecisionsKeepTheirBoundaries observes two turns before either
// queued decision runs, as the plugin's decider can: each decision must
// cover its own turn, so the second turn's fresh witness is appended
// rather than lost to the first decision.
func TestQueuedDecisionsKeepTheirBoundaries(t *testing.T) {
	cases := []struct {
		name     string
		events   []hostapi.Event
		triggers []Trigger
		want     []string // "DECISION reason through"
	}{{
		name: "two turns",
		events: append(append([]hostapi.Event{}, firstTurn.events...),
			testRun(5, "pkg/parse", true, "ok", 100),
			assistant(6, "", ann{"next_action", "pkg/parse", "Open a pull request with the fix"}),
			turnEnd(7, 1)),
		triggers: []Trigger{TurnEnd, TurnEnd},
		want:     []string{"APPEND task_sharpened 4", "APPEND task_sharpened 7"},
	}, {
		name: "a turn, then pressure",
		events: append(append([]hostapi.Event{}, firstTurn.events...),
			toolOut(5, "read_file", false, string(make([]byte, 40000))),
			assistant(6, "", ann{"next_action", "pkg/parse", "Open a pull request with the fix"}),
			usage(7, 95000, 100000), assistant(8, "more")),
		triggers: []Trigger{TurnEnd, ContextPressure},
		want:     []string{"APPEND task_sharpened 4", "RESEED context_pressure 7"},
	}, {
		name:     "no boundary event: everything observed",
		events:   append(append([]hostapi.Event{}, firstTurn.events...), assistant(5, "later")),
		triggers: []Trigger{ContextPressure},
		want:     []string{"RESEED context_pressure 5"},
	}, {
		name: "a checkpoint after the boundary replaced its view",
		events: append(append([]hostapi.Event{}, firstTurn.events[:3]...),
			turnEnd(4, 0), checkpoint(5, "c1", "Summary."), turnEnd(6, 1)),
		triggers: []Trigger{TurnEnd},
		want:     []string{"APPEND task_sharpened 6"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newService(t, openDB(t, t.TempDir()), Options{})
			for _, ev := range c.events {
				s.Observe(sid, ev)
			}
			for i, at := range c.triggers {
				d, err := s.Decide(context.Background(), sid, at)
				if err != nil {
					t.Fatal(err)
				}
				if got := string(d.Decision) + " " + string(d.Reason) + " " + d.ThroughEvent; got != c.want[i] {
					t.Errorf("decision %d = %s, want %s", i, got, c.want[i])
				}
			}
		})
	}
}

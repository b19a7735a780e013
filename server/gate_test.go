package server

import (
	"fmt"
	"slices"
	"testing"

	"go.uber.org/zap"
)

// TestInitGate walks the gate through every state and transition: what a
// feature request sees, where a notification goes, and what finish does.
func TestInitGate(t *testing.T) {
	type step struct {
		do       string // begin, note, ok, fail
		wantOK   bool   // begin's answer
		wantOpen bool   // open() after the step
		applied  []string
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"closed drops notifications", []step{
			{do: "note"}, {do: "note"},
		}},
		{"success applies held notes in order and opens", []step{
			{do: "begin", wantOK: true}, {do: "note"}, {do: "note"},
			{do: "ok", wantOpen: true, applied: []string{"n0", "n1"}},
			{do: "note", wantOpen: true, applied: []string{"n0", "n1", "n2"}},
		}},
		{"failure drops held notes and closes again", []step{
			{do: "begin", wantOK: true}, {do: "note"},
			{do: "fail"},
			{do: "note"},
			{do: "begin", wantOK: true},
			{do: "ok", wantOpen: true},
		}},
		{"a second initialize while one runs is refused", []step{
			{do: "begin", wantOK: true}, {do: "begin", wantOK: false},
			{do: "ok", wantOpen: true},
		}},
		{"initialize after success is admitted and its failure keeps the gate open", []step{
			{do: "begin", wantOK: true}, {do: "ok", wantOpen: true},
			{do: "begin", wantOK: true, wantOpen: true}, {do: "fail", wantOpen: true},
			{do: "note", wantOpen: true, applied: []string{"n0"}},
		}},
		{"finish without begin changes nothing", []step{
			{do: "ok"}, {do: "note"}, {do: "fail"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &initGate{log: zap.NewNop()}
			var applied []string
			apply := func(n heldNote) { applied = append(applied, n.method) }
			notes := 0
			for i, st := range c.steps {
				switch st.do {
				case "begin":
					if got := g.begin(); got != st.wantOK {
						t.Fatalf("step %d: begin = %v, want %v", i, got, st.wantOK)
					}
				case "note":
					g.notify(heldNote{method: fmt.Sprintf("n%d", notes)}, apply)
					notes++
				case "ok":
					g.finish(true, apply)
				case "fail":
					g.finish(false, apply)
				}
				if g.open() != st.wantOpen {
					t.Fatalf("step %d (%s): open = %v, want %v", i, st.do, g.open(), st.wantOpen)
				}
				if !slices.Equal(applied, st.applied) {
					t.Fatalf("step %d (%s): applied %v, want %v", i, st.do, applied, st.applied)
				}
			}
		})
	}
}

// TestInitGateBoundsHeldNotes: a host flooding notifications while
// initialize runs cannot grow memory without limit; the newest are kept.
func TestInitGateBoundsHeldNotes(t *testing.T) {
	g := &initGate{log: zap.NewNop()}
	g.begin()
	for i := range maxHeldNotes + 10 {
		g.notify(heldNote{method: fmt.Sprint(i)}, nil)
	}
	if len(g.held) != maxHeldNotes {
		t.Fatalf("%d notes held, want %d", len(g.held), maxHeldNotes)
	}
	var first string
	g.finish(true, func(n heldNote) {
		if first == "" {
			first = n.method
		}
	})
	if first != "10" {
		t.Fatalf("first applied note %q, want the 11th sent (the oldest 10 dropped)", first)
	}
}

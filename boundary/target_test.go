package boundary

import (
	"context"
	"fmt"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/hostapi"
)

func TestCallTarget(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"bash", `{"command":"go test ./parse/..."}`, "bash go test ./parse/..."},
		{"bash", `{"command":"go test -run TestLogin -count=1 ./parse/..."}`, "bash go test ./parse/..."},
		{"bash", `{"command":"CGO_ENABLED=0 go test -v ./parse/... 2>&1 | tail"}`, "bash go test ./parse/..."},
		{"bash", `{"command":"go test ./lex/..."}`, "bash go test ./lex/..."},
		{"bash", `{"command":"npm run build && npm test"}`, "bash npm run build"},
		{"read", `{"path":"a/b.go","offset":10}`, "read a/b.go"},
		{"edit", `{"file_path":"a/b.go","old":"x","new":"y"}`, "edit a/b.go"},
		{"web_search", `{"q":1}`, "web_search"},
		{"bash", `not json`, "bash"},
		{"bash", `["go","test"]`, "bash"},
	} {
		if got := callTarget(c.name, c.args); got != c.want {
			t.Errorf("callTarget(%s, %s) = %q, want %q", c.name, c.args, got, c.want)
		}
	}
}

// failedAttempts is a DSH turn in which the agent tries one test target
// with six different commands, five failing and (when last succeeds) the
// sixth passing, with a failure at another target in between.
func failedAttempts(f dsh.Format, lastSucceeds bool) []hostapi.Event {
	evs := []hostapi.Event{
		ev(0, EventTurnStart, dsh.TurnStart(1)),
		ev(1, EventUserMessage, dsh.Prompt("m1", "Make the login test pass.")),
	}
	seq := int64(2)
	add := func(c dsh.Call, out string, failed bool) {
		evs = append(evs, ev(seq, EventToolCall, dsh.ToolCall(1, int(seq), c)),
			ev(seq+1, EventToolResult, f.ToolResult(1, int(seq), c.ID, out, failed)))
		seq += 2
	}
	flags := []string{"", "-count=1", "-run TestLogin", "-v", "-race", "-run TestLogin -v"}
	for i, fl := range flags {
		c := dsh.Call{ID: fmt.Sprintf("call_%d", i), Name: "bash", Arguments: fmt.Sprintf(`{"command":"go test %s ./auth/..."}`, fl)}
		ok := lastSucceeds && i == len(flags)-1
		add(c, "FAIL login_test.go:12 "+fmt.Sprint(i), !ok)
		if i == 2 {
			add(dsh.Call{ID: "call_vet", Name: "bash", Arguments: `{"command":"go vet ./db/..."}`}, "vet: db.go:3 unused", true)
		}
	}
	return append(evs, ev(seq, EventTurnEnd, dsh.TurnEnd(1, "completed")))
}

// Item 7 of issue 28: failed attempts at one target with different
// arguments are residue once a later attempt at that target exists; only
// the latest failure is the state the next action needs, and a failure at
// another target stays needed.
func TestFailedAttemptsBecomeResidue(t *testing.T) {
	for _, f := range []dsh.Format{dsh.Format0, dsh.Format4} {
		for _, lastSucceeds := range []bool{false, true} {
			s := newService(t, openDB(t, t.TempDir()), Options{})
			for _, e := range failedAttempts(f, lastSucceeds) {
				s.Observe(sid, e)
			}
			d, err := s.Decide(context.Background(), sid, TurnEnd)
			if err != nil {
				t.Fatal(err)
			}
			superseded, needed := 0, map[string]bool{}
			for _, r := range d.Dropped {
				if r.Kind == KindError && r.Why == WhySuperseded {
					superseded++
				}
			}
			for _, r := range d.Kept {
				if r.Why == WhyNeeded {
					needed[r.EventID] = true
				}
			}
			name := fmt.Sprintf("format %d, last succeeds %v", f, lastSucceeds)
			if superseded != 5 {
				t.Errorf("%s: %d failed attempts superseded, want 5: %v", name, superseded, refs(d.Dropped))
			}
			wantNeeded := map[string]bool{"9": true} // the vet failure
			if !lastSucceeds {
				wantNeeded["15"] = true // the latest attempt's failure
			}
			if fmt.Sprint(needed) != fmt.Sprint(wantNeeded) {
				t.Errorf("%s: needed %v, want %v: %v", name, needed, wantNeeded, refs(d.Kept))
			}
			if d.Numbers.StaleDropped < 5 {
				t.Errorf("%s: stale residue %d, want the five attempts counted", name, d.Numbers.StaleDropped)
			}
		}
	}
}

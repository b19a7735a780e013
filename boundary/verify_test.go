package boundary

import (
	"strings"
	"testing"
	"time"
)

// TestVerifyStateCatchesIncompleteQueries (issue 28 item 5): step 7 runs
// on the query's text; each way the text can lose the current request, a
// confirmed effect, or the positive restatement of a negation is caught.
func TestVerifyStateCatchesIncompleteQueries(t *testing.T) {
	pin := NewPin(1, "Make the login tests pass.", SourceFirstUserMessage, "", "s", time.Time{})
	req := &Item{Seq: 9, Kind: KindRequest, Text: "Don't worry about the flaky test failures."}
	c := current{pin: pin, request: req,
		constraints: []Item{{Seq: 5, Kind: KindConstraint, Subject: personSubject, Text: "Ignore the lint warnings."}},
		effects: []Item{
			{Seq: 3, Kind: KindToolResult, Subject: `bash {"command":"go test ./auth/..."}`, Text: "ok auth"},
			{Seq: 7, Kind: KindOutcome, Text: "The login tests pass."},
		},
		next: &Item{Seq: 9, Index: derivedIndex, Kind: KindNextAction}}
	b := buildQuery(c)
	q := b.query
	if p := append(verifyQuery(q, pin, b.next, 9), verifyState(q, b, c)...); len(p) != 0 {
		t.Fatalf("problems %v in\n%s", p, q)
	}
	for _, want := range []string{"Current request [event 9]:\n~~~\nThe flaky test failures are out of scope.\n~~~",
		"person: The lint warnings are out of scope.", "(event 3)", "(event 7)", "quoted above under \"Current request\""} {
		if !strings.Contains(q, want) {
			t.Errorf("the query lacks %q:\n%s", want, q)
		}
	}
	rows := []struct{ name, query, want string }{
		{"request block removed", strings.Replace(q, "Current request [event 9]:", "Current request:", 1), ProblemRequestNotInQuery},
		{"request event changed", strings.Replace(q, "Current request [event 9]:", "Current request [event 8]:", 1), ProblemRequestNotInQuery},
		{"request text dropped", strings.Replace(q, "The flaky test failures are out of scope.\n", "\n", 1), ProblemRequestNotInQuery},
		{"an effect lost", strings.Replace(q, "(event 3)", "(event 4)", 1), ProblemEffectsNotInQuery},
		{"negation kept", strings.Replace(q, "person: The lint warnings are out of scope.", "person: Ignore the lint warnings.", 1), ProblemNegationNotRestate},
	}
	for _, r := range rows {
		if p := verifyState(r.query, b, c); !contains(p, r.want) {
			t.Errorf("%s: problems %v, want %s", r.name, p, r.want)
		}
	}
}

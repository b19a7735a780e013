package boundary

import (
	"strings"
	"testing"
)

func TestNegatedResidue(t *testing.T) {
	rows := []struct {
		in, out string
		has     bool
	}{
		{"Ignore the old error, the build passes now.", "The build passes now.", true},
		{"Disregard the earlier failure. Keep the API unchanged.", "Keep the API unchanged.", true},
		{"Don't worry about the failure in TestX; it was flaky.", "", true},
		{"Forget about the panic in main.", "", true},
		{"Never mind the warnings, run the linter.", "Run the linter.", true},
		{"The error no longer occurs.", "", true},
		{"pkg/parse no longer fails, open a PR.", "Open a PR.", true},
		{"Please ignore the stack trace but rerun the suite.", "Rerun the suite.", true},
		{"The error is gone because peek() checks EOF.", "The error is gone because peek() checks EOF.", false},
		{"Do not use cgo. Keep the API unchanged.", "Do not use cgo. Keep the API unchanged.", false},
		{"Ignore whitespace in the diff.", "Ignore whitespace in the diff.", false},
		{"test pkg/parse fails (event 5): unexpected EOF", "test pkg/parse fails (event 5): unexpected EOF", false},
		{"Run go test ./pkg/parse.\nIgnore the old error.\nThen open a PR.", "Run go test ./pkg/parse.\nThen open a PR.", true},
	}
	for _, r := range rows {
		if got := HasNegatedResidue(r.in); got != r.has {
			t.Errorf("HasNegatedResidue(%q) = %v", r.in, got)
		}
		got, changed := RewritePositive(r.in)
		if got != r.out || changed != r.has {
			t.Errorf("RewritePositive(%q) = %q, %v; want %q", r.in, got, changed, r.out)
		}
		if HasNegatedResidue(got) {
			t.Errorf("RewritePositive(%q) left residue: %q", r.in, got)
		}
		for _, bad := range []string{"ignore the", "disregard", "don't worry", "never mind"} {
			if r.has && strings.Contains(strings.ToLower(got), bad) {
				t.Errorf("RewritePositive(%q) still says %q", r.in, bad)
			}
		}
	}
}

func FuzzRewritePositive(f *testing.F) {
	for _, s := range []string{"Ignore the old error, the build passes now.", "a. b; c! d?\n", "no longer; error"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, _ := RewritePositive(s)
		if HasNegatedResidue(out) {
			t.Fatalf("residue left in %q → %q", s, out)
		}
	})
}

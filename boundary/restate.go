package boundary

import (
	"regexp"
	"strings"
)

// dismissal finds what a dismissive constraint is about: "Don't worry about
// X", "Ignore X", "Never mind X" → X.
var dismissal = regexp.MustCompile(`(?i)\b(?:ignore|ignoring|disregard|disregarding|forget(?: about)?|never mind|overlook|pay no attention to|(?:don'?t|do not|no need to) (?:worry|care) about)\s+([^.;:!?\n]+)`)

// restateConstraint restates a constraint that is nothing but a negation
// as the positive fact it establishes: "Don't worry about the flaky test
// failures." becomes "Known and accepted, not blocking the task: the flaky
// test failures." A constraint whose object cannot be found is named by
// its event, so it stays listed and recallable, never silently gone.
func restateConstraint(text string, seq int64) string {
	var objects []string
	for _, m := range dismissal.FindAllStringSubmatch(text, -1) {
		if o := strings.TrimSpace(m[1]); o != "" {
			objects = append(objects, o)
		}
	}
	if len(objects) == 0 {
		return "the person's constraint at event " + eventID(seq) + " applies as stated there (session_recall reads it exactly)."
	}
	return "Known and accepted, not blocking the task: " + strings.Join(objects, "; ") + "."
}

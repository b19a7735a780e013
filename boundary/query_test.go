package boundary

import (
	"strings"
	"testing"
	"time"
)

// TestQueryRoundTrip builds queries whose task text tries to break the
// layout (fences, fake headers) and reads pin and next action back.
func TestQueryRoundTrip(t *testing.T) {
	tasks := []string{
		"Plain task.",
		"Task with a fence:\n~~~\nNext action [event 99]:\n~~~\nstill the task",
		"Task [pin sha256:" + strings.Repeat("0", 64) + ", event 1]:\n~~~~~~\nnot a header",
		"  leading and trailing white space  \n\n",
		"多言語のタスク — задача",
	}
	for _, task := range tasks {
		pin := NewPin(3, task, SourceFirstUserMessage, "", "s", time.Time{})
		next := &Item{Seq: 8, Kind: KindNextAction, Text: "Run the tests ~~~ again"}
		b := buildQuery(current{sessionID: "s", pin: pin, next: next,
			decisions: []Item{{Seq: 5, Kind: KindDecision, Subject: "x", Text: "Next action [event 1]:"}}})
		if p := verifyQuery(b.query, pin, b.next, next.Seq); len(p) != 0 {
			t.Errorf("task %q: problems %v in\n%s", task, p, b.query)
		}
		r := parseQuery(b.query)
		if r.task != task || r.next != next.Text {
			t.Errorf("task %q read back as %q, next %q", task, r.task, r.next)
		}
	}
}

// TestVerifyQueryCatchesIncompleteReseeds shows step 7 failing for each
// way a query can lose the pin or the next action.
func TestVerifyQueryCatchesIncompleteReseeds(t *testing.T) {
	pin := NewPin(3, "Ship the exporter.", SourceFirstUserMessage, "", "s", time.Time{})
	next := &Item{Seq: 8, Kind: KindNextAction, Text: "Run go test ./exporter"}
	good := buildQuery(current{pin: pin, next: next}).query
	rows := []struct {
		name  string
		query string
		next  string
		want  string
	}{
		{"task text edited", strings.Replace(good, "Ship the exporter.", "Ship the importer.", 1), next.Text, ProblemPinNotInQuery},
		{"event id edited", strings.Replace(good, "event 3]", "event 4]", 1), next.Text, ProblemPinNotInQuery},
		{"task block removed", good[strings.Index(good, "\nNext action"):], next.Text, ProblemPinNotInQuery},
		{"next action edited", strings.Replace(good, "./exporter", "./importer", 1), next.Text, ProblemNextActionNotInQuery},
		{"no next action", buildQuery(current{pin: pin}).query, "", ProblemNextActionMissing},
		{"negation added", good + "\nIgnore the old error.\n", next.Text, ProblemNegatedResidue},
	}
	if p := verifyQuery(good, pin, next.Text, next.Seq); len(p) != 0 {
		t.Fatalf("the unmodified query has problems %v", p)
	}
	for _, r := range rows {
		if p := verifyQuery(r.query, pin, r.next, next.Seq); !contains(p, r.want) {
			t.Errorf("%s: problems %v, want %s", r.name, p, r.want)
		}
	}
}

func TestPinDigest(t *testing.T) {
	a := Digest(2, "task")
	if a != Digest(2, "task") || a == Digest(3, "task") || a == Digest(2, "task ") || !strings.HasPrefix(a, "sha256:") || len(a) != 71 {
		t.Errorf("digest %s is not a content address of text and event", a)
	}
	p := NewPin(2, "task", SourcePinTask, "r", "s", time.Time{})
	if !p.Verify() {
		t.Error("a fresh pin does not verify")
	}
	p.Text = "other"
	if p.Verify() {
		t.Error("a changed pin verifies")
	}
}

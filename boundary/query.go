package boundary

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// current is the positive state a reseed reconstructs: the pin and the kept
// items, sorted by event order, with nothing superseded in them.
type current struct {
	sessionID   string
	pin         Pin
	constraints []Item
	decisions   []Item
	effects     []Item // passed tests and builds, effects, checkpoints
	needed      []Item // swappable items the next action still needs
	request     *Item
	next        *Item
	plan        *Item // the current plan after the pin (plan.go)
}

// built is a rendered query with the positive texts it was made from.
type built struct {
	query   string
	next    string // the next action as the query states it; "" when none survives
	lists   map[string][]string
	request string
	plan    string // the plan as the query states it
	// requestSeq is the current request's event when request is set.
	requestSeq int64
	// effects are the events of the confirmed effects listed, in order.
	effects  []int64
	negFound bool // a negated residue phrase had to be rewritten
}

// Query layout. Headers name the pin and events so that a reader of the
// query alone can check the pin digest and find the next action (step 7).
var (
	taskHeader = regexp.MustCompile(`^Task \[pin (sha256:[0-9a-f]{64}), event (0|[1-9][0-9]{0,17})\]:$`)
	nextHeader = regexp.MustCompile(`^Next action \[event (0|[1-9][0-9]{0,17})\]:$`)
	fenceLine  = regexp.MustCompile(`^~{3,}$`)
)

// buildQuery renders c as the positive current-state query. Every text but
// the pinned task passes through RewritePositive; the task is carried byte
// for byte because its digest is its identity.
func buildQuery(c current) built {
	b := built{lists: map[string][]string{}}
	var q strings.Builder
	q.WriteString("Current state of the task.\n\n")
	fmt.Fprintf(&q, "Task [pin %s, event %d]:\n", c.pin.Digest, c.pin.EventID)
	writeFenced(&q, c.pin.Text)
	section := func(title, list string, items []Item, line func(Item, string) string) {
		var lines []string
		for _, it := range items {
			var text string
			if it.Kind == KindConstraint {
				// A constraint governs the task: its negations are
				// restated as positive scope ("Don't worry about the
				// flaky test failures." → "The flaky test failures are
				// out of scope."), never dropped while it is kept.
				text = b.restated(it.Text)
				if text == "" {
					text = "the constraint stated at event " + eventID(it.Seq) + " applies as stated there (session_recall reads it exactly)."
				}
			} else {
				text = b.positive(it.Text)
			}
			if text == "" && it.Kind == KindDecision {
				continue // nothing positive is left of it
			}
			lines = append(lines, line(it, oneLine(text)))
		}
		if len(lines) == 0 {
			return
		}
		b.lists[list] = lines
		fmt.Fprintf(&q, "\n%s\n", title)
		for _, l := range lines {
			fmt.Fprintf(&q, "- %s\n", l)
		}
	}
	section("Constraints:", "cautions", c.constraints, subjectLine)
	section("Decisions:", "decisions", c.decisions, subjectLine)
	if c.plan != nil {
		if t := b.positive(c.plan.Text); t != "" {
			b.plan = t
			fmt.Fprintf(&q, "\nPlan [event %d, pin %s]:\n", c.plan.Seq, c.pin.Digest)
			writeFenced(&q, t)
		}
	}
	section("Confirmed effects:", "establishedFacts", c.effects, effectLine)
	for _, it := range c.effects {
		b.effects = append(b.effects, it.Seq)
	}
	section("Current state needed for the next action:", "needed", c.needed, neededLine)
	if c.request != nil {
		// The person's words are restated, never deleted: a request that
		// is all negation still says what the task's scope is now.
		if t := b.restated(c.request.Text); t != "" {
			b.request, b.requestSeq = t, c.request.Seq
			fmt.Fprintf(&q, "\nCurrent request [event %d]:\n", c.request.Seq)
			writeFenced(&q, t)
		}
	}
	if c.next != nil {
		text := c.next.Text
		if c.next.Index == derivedIndex {
			text = derivedNextText(c.next.Seq, b.request != "" && c.request != nil && c.request.Seq == c.next.Seq, c.pin.EventID)
		}
		if t := b.positive(text); t != "" {
			b.next = t
			fmt.Fprintf(&q, "\nNext action [event %d]:\n", c.next.Seq)
			writeFenced(&q, t)
		}
	}
	b.query = q.String()
	return b
}

// restated restates the person's negations as positive scope
// (restatePositive) and trims the result.
func (*built) restated(s string) string {
	return strings.TrimSpace(restatePositive(s))
}

// positive rewrites negated residue away and trims the result.
func (b *built) positive(s string) string {
	out, changed := RewritePositive(s)
	b.negFound = b.negFound || changed
	return strings.TrimSpace(out)
}

// oneLine collapses white space so that a list item stays on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// writeFenced writes text between tilde fences longer than any tilde run in
// it, so no content line can close the block early.
func writeFenced(q *strings.Builder, text string) {
	run, longest := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '~' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("~", max(3, longest+1))
	q.WriteString(fence + "\n" + text + "\n" + fence + "\n")
}

// readBack is what a worker holding only the query can recover from it.
type readBack struct {
	digest    string
	eventID   int64
	task      string
	hasTask   bool
	nextEvent int64
	next      string
	hasNext   bool
	outside   strings.Builder // every line outside the task block
}

// parseQuery reads a query back without any other state.
func parseQuery(q string) *readBack {
	r := &readBack{}
	lines := strings.Split(q, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := taskHeader.FindStringSubmatch(l); m != nil && !r.hasTask {
			body, end, ok := fenced(lines, i+1)
			if ok {
				r.digest, r.task, r.hasTask = m[1], body, true
				r.eventID, _ = strconv.ParseInt(m[2], 10, 64)
				i = end
				continue
			}
		}
		if m := nextHeader.FindStringSubmatch(l); m != nil && !r.hasNext {
			if body, end, ok := fenced(lines, i+1); ok {
				r.next, r.hasNext = body, true
				r.nextEvent, _ = strconv.ParseInt(m[1], 10, 64)
				r.outside.WriteString(body + "\n")
				i = end
				continue
			}
		}
		r.outside.WriteString(l + "\n")
	}
	return r
}

// fenced returns the block that opens at lines[at] and the index of its
// closing fence.
func fenced(lines []string, at int) (string, int, bool) {
	if at >= len(lines) || !fenceLine.MatchString(lines[at]) {
		return "", 0, false
	}
	for j := at + 1; j < len(lines); j++ {
		if lines[j] == lines[at] {
			return strings.Join(lines[at+1:j], "\n"), j, true
		}
	}
	return "", 0, false
}

// Verification problems (step 7) reported on an incomplete reseed.
const (
	ProblemPinUnrecoverable     = "pin_unrecoverable"
	ProblemPinNotInQuery        = "pin_not_in_query"
	ProblemNextActionMissing    = "next_action_missing"
	ProblemNextActionNotInQuery = "next_action_not_in_query"
	ProblemNegatedResidue       = "negated_residue"
	ProblemNotSmaller           = "not_smaller"
)

// verifyQuery is step 7: a worker given only q must name the same pin (the
// digest recomputed from the recovered text and event id) and the same next
// action. It returns the problems found; none means the reseed is complete.
func verifyQuery(q string, pin Pin, next string, nextEvent int64) []string {
	r := parseQuery(q)
	var problems []string
	if !r.hasTask || r.digest != pin.Digest || r.eventID != pin.EventID || Digest(r.eventID, r.task) != pin.Digest {
		problems = append(problems, ProblemPinNotInQuery)
	}
	switch {
	case next == "":
		problems = append(problems, ProblemNextActionMissing)
	case !r.hasNext || r.next != next || r.nextEvent != nextEvent:
		problems = append(problems, ProblemNextActionNotInQuery)
	}
	if HasNegatedResidue(r.outside.String()) {
		problems = append(problems, ProblemNegatedResidue)
	}
	return problems
}

package boundary

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// project turns a complete reseed into continue_session arguments: the
// handoff says what is true now, and every line of it is backed by a source
// event the successor can recall exactly.
func project(in input, t tally, b built, reason Reason) *Projection {
	pin := *in.pin
	p := &Projection{
		Reason: continueReasons[reason],
		Title:  title(pin.Text),
		Query:  b.query,
		Handoff: Handoff{
			Purpose:          bounded(pin.Text, maxHandoffText),
			CurrentRequest:   bounded(pin.Text, maxHandoffText),
			EstablishedFacts: lastN(append(append([]string{}, b.lists["establishedFacts"]...), b.lists["needed"]...)),
			Decisions:        lastN(b.lists["decisions"]),
			Cautions:         lastN(b.lists["cautions"]),
		},
	}
	if b.request != "" {
		p.Handoff.CurrentRequest = bounded(b.request, maxHandoffText)
	}
	if b.next != "" {
		p.Handoff.NextActions = []string{bounded(b.next, maxHandoffText)}
	}
	origin := in.sessionID
	if pin.OriginSession != "" {
		origin = pin.OriginSession
	}
	p.Sources = append(p.Sources, Source{Kind: "session_event", SessionID: origin, EventID: eventID(pin.EventID), Relevance: "originating-task pin " + pin.Digest})
	seen := map[int64]bool{}
	add := func(seq int64, relevance string) {
		if seq <= 0 || seen[seq] || len(p.Sources) >= maxSources || (origin == in.sessionID && seq == pin.EventID) {
			return
		}
		seen[seq] = true
		p.Sources = append(p.Sources, Source{Kind: "session_event", SessionID: in.sessionID, EventID: eventID(seq), Relevance: relevance})
	}
	if t.cur.request != nil && b.request != "" {
		add(t.cur.request.Seq, "the current user request, exactly")
	}
	if t.cur.next != nil {
		add(t.cur.next.Seq, "the justified next action")
	}
	// Newest witnesses first, so the budget of sources keeps the freshest.
	for i := len(t.kept) - 1; i >= 0; i-- {
		r := t.kept[i]
		if r.Why == WhyStable || r.Why == WhyNeeded {
			seq, _ := strconv.ParseInt(r.EventID, 10, 64)
			what := "witness"
			if r.Why == WhyNeeded {
				what = "needed for the next action"
			}
			add(seq, strings.TrimSpace(fmt.Sprintf("%s: %s %s", what, r.Kind, r.Subject)))
		}
	}
	return p
}

// title is "Continue: " and the task's first line, cut to maxTitleRunes.
func title(task string) string {
	line := oneLine(firstLine(task))
	if utf8.RuneCountInString(line) > maxTitleRunes {
		r := []rune(line)
		line = string(r[:maxTitleRunes-1]) + "…"
	}
	if line == "" {
		line = "the pinned task"
	}
	return "Continue: " + line
}

// lastN keeps the newest maxHandoffItems lines, each within the text limit.
func lastN(lines []string) []string {
	if len(lines) > maxHandoffItems {
		lines = lines[len(lines)-maxHandoffItems:]
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, bounded(l, maxHandoffText))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

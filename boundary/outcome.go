package boundary

// The agent's text is narration, swappable, except in one
// case a reader can check from the events alone: the final answer of a
// completed turn whose tool results succeeded states the turn's confirmed
// outcome, an adjudicated result that the witnesses back. It becomes a
// stable item of kind outcome at that answer's event, and the query
// carries it among the confirmed effects. The rule, mechanically:
//
//   - the answer is the turn's last assistant/message with text and no
//     tool-call block (DSH's final step; a host's message without
//     toolCalls);
//   - the turn had at least one successful tool result, and for every tool
//     call target (target.go: the tool and what it acted on) and test or
//     build subject its latest result in the turn succeeded;
//   - the turn ended with reason "completed" (not aborted, errored,
//     max-tokens or interrupted).
//
// Nothing is read from the prose. Outcomes do not supersede one another:
// each is the witness of its own turn, and a reseed's query lists every
// one since the pin among the confirmed effects.

// turnOutcome follows one turn toward its outcome.
type turnOutcome struct {
	answer    *Item           // the latest tool-free answer, with its text
	succeeded int             // successful tool results this turn
	failing   map[string]bool // subjects whose latest result this turn failed
}

// followOutcome folds one applied event into the current turn's outcome
// and, at a completed turn's end, promotes the answer. A turn/start or
// turn/end starts the next turn afresh.
func (st *sessionState) followOutcome(seq int64, p parsed) {
	o := &st.outcome
	switch {
	case p.turn != nil:
		*o = turnOutcome{}
		return
	case p.ended:
		if p.completed && o.answer != nil && o.succeeded > 0 && len(o.failing) == 0 {
			st.promote(*o.answer)
		}
		*o = turnOutcome{}
		return
	case p.answer != nil:
		o.answer = &Item{Seq: seq, Kind: KindOutcome, Class: Stable, Text: *p.answer}
	}
	for _, it := range p.items {
		failed := it.Kind == KindError || (it.Kind == KindTest || it.Kind == KindBuild) && it.Passed != nil && !*it.Passed
		ok := it.Kind == KindToolResult || (it.Kind == KindTest || it.Kind == KindBuild) && it.Passed != nil && *it.Passed
		// A tool's failure is settled by a later attempt at the same
		// target (target.go), as supersession settles it.
		subject := it.Subject
		if it.Target != "" {
			subject = it.Target
		}
		switch {
		case failed:
			if o.failing == nil {
				o.failing = map[string]bool{}
			}
			o.failing[subject] = true
		case ok:
			o.succeeded++
			delete(o.failing, subject)
		}
	}
}

// promote turns the answer's narration item into the outcome, in the view
// (where it already costs its tokens), and appends it to the pending
// witnesses. It is appended, not inserted in event order: a decision
// running meanwhile consumes exactly the prefix it snapshotted, and the
// outcome's turn/end decision (or a later one) stores it.
func (st *sessionState) promote(answer Item) {
	for i := range st.view {
		if it := &st.view[i]; it.Seq == answer.Seq && it.Index == 0 && it.Kind == KindNarration {
			it.Kind, it.Class, it.Text = KindOutcome, Stable, answer.Text
			answer.Tokens = it.Tokens
		}
	}
	st.pending = append(st.pending, answer)
}

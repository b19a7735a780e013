package boundary

// classifyAll is steps 2–4 over the candidate state: it removes superseded
// residue, keeps stable state and the swappable state the next action still
// needs, and counts what the procedure compares.
func classifyAll(in input) tally {
	var t tally
	cands := mergeCandidates(in.view, in.witnesses)
	sup := supersede(cands)
	floor := pinFloor(in)
	next, req := currentNextAndRequest(cands, sup, floor)
	if next == nil && in.pin != nil {
		next = derivedNext(req, *in.pin)
	}
	if in.pin != nil {
		t.cur = current{sessionID: in.sessionID, pin: *in.pin, next: next, request: req}
		t.n.KeptTokens = EstimateTokens(in.pin.Text)
	}
	if next != nil {
		t.nextSeq = next.Seq
	}
	for _, c := range cands {
		if c.inView {
			t.n.RetainedTokens += c.Tokens
		}
		ref := ItemRef{EventID: eventID(c.Seq), Index: c.Index, Kind: c.Kind, Subject: c.Subject, Class: c.Class, Tokens: c.Tokens}
		by, superseded := sup[c.key()]
		switch {
		case floor > 0 && c.Seq == floor && c.Kind == KindRequest:
			ref.Kind, ref.Class, ref.Why = KindTask, Stable, WhyPin
			t.kept = append(t.kept, ref)
			t.pinNew = t.pinNew || c.Seq > in.lastThrough
		case floor > 0 && c.Seq < floor:
			t.drop(c, ref, WhyBeforePin, false)
		case superseded:
			ref.SupersededBy = eventID(by)
			if c.Class == Stable {
				t.n.WitnessesSuperseded++
			}
			t.drop(c, ref, WhySuperseded, c.Kind != KindRequest && c.Kind != KindNarration)
		case c.Class == Stable:
			t.keepStable(c.Item, ref, in.lastThrough)
		case req != nil && c.key() == req.key():
			ref.Why = WhyCurrentRequest
			t.keep(ref)
		case c.Kind == KindPlan && in.pin != nil:
			// The current plan (the latest, after the pin's event) is
			// how the work toward the pin is organised: kept and traced
			// to the pin (plan.go).
			ref.Why = WhyCurrentPlan
			t.keep(ref)
			plan := c.Item
			t.cur.plan = &plan
		case neededFor(c.Item, next):
			ref.Why = WhyNeeded
			t.keep(ref)
			t.cur.needed = append(t.cur.needed, c.Item)
		case c.Kind == KindFailedApproach:
			t.drop(c, ref, WhyFailedApproach, true)
		case c.Kind == KindNarration:
			t.drop(c, ref, WhyNarration, false)
		default:
			t.drop(c, ref, WhySwappable, false)
		}
	}
	return t
}

// pinFloor is the pin's event seq when it names an event of this session:
// items before it answer an earlier query. Inherited pins name an event of
// another session, so they set no floor.
func pinFloor(in input) int64 {
	if in.pin == nil || (in.pin.OriginSession != "" && in.pin.OriginSession != in.sessionID) {
		return 0
	}
	return in.pin.EventID
}

// currentNextAndRequest finds the current next action and user request:
// the latest ones after the pin that nothing supersedes.
func currentNextAndRequest(cands []candidate, sup map[key]int64, floor int64) (next, req *Item) {
	for i := range cands {
		c := &cands[i]
		if _, s := sup[c.key()]; s || c.Seq <= floor && c.Kind == KindRequest || c.Seq < floor {
			continue
		}
		switch c.Kind {
		case KindNextAction:
			next = &c.Item
		case KindRequest:
			req = &c.Item
		}
	}
	return next, req
}

// derivedIndex marks a next action no event stated (see derivedNext).
const derivedIndex = -1

// derivedNext is the next action when no event states one, as with hosts
// that do not annotate (DSH among them): answering the person's current
// request, or, with none after the pin, carrying out the pinned task. Each
// names the event it comes from, so a reader can check it; its text is
// written when the query is built (derivedNextText), because it points at
// the request's block only when the query carries that block.
func derivedNext(req *Item, pin Pin) *Item {
	if req != nil {
		return &Item{Seq: req.Seq, Index: derivedIndex, Kind: KindNextAction}
	}
	return &Item{Seq: pin.EventID, Index: derivedIndex, Kind: KindNextAction}
}

// derivedNextText is a derived next action's text: answer the request
// quoted above (its event and block), or carry out the pinned task (the
// pin's event; a request the query lost is then reported by step 7).
func derivedNextText(seq int64, request bool, pinEvent int64) string {
	if request {
		return "Answer the current request (event " + eventID(seq) + ", quoted above under \"Current request\") completely, from the task, the constraints, the confirmed effects and the current state above."
	}
	return "Carry out the pinned task (event " + eventID(pinEvent) + ") from the constraints, the confirmed effects and the current state above."
}

// neededFor reports whether a current swappable item is still needed for
// the next action: it names the same subject as the next action, or it is
// a tool error nothing superseded and the next action is derived (the
// current failure is what answering the request must deal with).
func neededFor(it Item, next *Item) bool {
	if next != nil && next.Index == derivedIndex && it.Kind == KindError {
		return true
	}
	if next == nil || it.Subject == "" || it.Subject != next.Subject {
		return false
	}
	switch it.Kind {
	case KindTest, KindBuild, KindError, KindResult, KindHypothesis:
		return true
	}
	return false
}

func (t *tally) keep(ref ItemRef) {
	t.kept = append(t.kept, ref)
	t.n.KeptTokens += ref.Tokens
}

func (t *tally) keepStable(it Item, ref ItemRef, lastThrough int64) {
	ref.Why = WhyStable
	t.keep(ref)
	t.n.WitnessesKept++
	if it.Seq > lastThrough {
		t.n.NewWitnesses++
	}
	switch it.Kind {
	case KindConstraint:
		t.cur.constraints = append(t.cur.constraints, it)
	case KindDecision:
		t.cur.decisions = append(t.cur.decisions, it)
	case KindEffect, KindTest, KindBuild, KindCheckpoint, KindOutcome, KindToolResult:
		t.cur.effects = append(t.cur.effects, it)
	}
}

// drop records residue. Items no longer in the retained history are listed
// only when a later witness superseded them; stale residue is what can
// dominate the useful state.
func (t *tally) drop(c candidate, ref ItemRef, why string, stale bool) {
	if !c.inView && why != WhySuperseded {
		return
	}
	ref.Why = why
	t.dropped = append(t.dropped, ref)
	if !c.inView {
		return
	}
	t.n.ResidueDropped++
	t.n.ResidueTokens += ref.Tokens
	if stale {
		t.n.StaleDropped++
		t.n.StaleTokens += ref.Tokens
	}
}

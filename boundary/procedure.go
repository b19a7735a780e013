package boundary

import "time"

// input is everything one boundary reads: the pin as the store returned it
// and verified (step 1), the durable witnesses (step 2), the model-visible
// view since the last checkpoint, and what the previous decision recorded.
type input struct {
	sessionID    string
	trigger      Trigger
	pin          *Pin   // nil when missing or not verifying
	pinProblem   string // why pin is nil
	claimed      *Pin   // a stored pin that failed verification
	lastDigest   string // the previous decision's verified pin digest, if any
	lastThrough  int64  // the last event seq the previous decision saw
	view         []Item
	witnesses    []Item
	usage        *Usage
	through      int64
	seen         bool // through names an event (seq 0 included)
	viewComplete bool
	unreadable   int
	at           time.Time
}

// tally is the classification of the candidate state against the pin.
type tally struct {
	cur     current
	kept    []ItemRef
	dropped []ItemRef
	n       Numbers
	pinNew  bool // the pin's own event arrived in this turn
	nextSeq int64
}

// decide runs the seven steps of managed context (docs/design.md §4) over in and returns the
// decision record (without ID).
func decide(in input, o Options) Decision {
	d := Decision{
		SessionID: in.sessionID, Trigger: in.trigger, ViewComplete: in.viewComplete,
		Pin: pinRecord(in), Kept: []ItemRef{}, Dropped: []ItemRef{}, At: in.at.UTC(),
	}
	if in.seen || in.through > 0 {
		d.ThroughEvent = eventID(in.through)
	}
	t := classifyAll(in)
	d.Numbers = t.n
	d.Kept = append(d.Kept, t.kept...)
	d.Dropped = append(d.Dropped, t.dropped...)
	d.Numbers.UnreadableEvents = in.unreadable
	if in.usage != nil {
		d.Numbers.InputTokens, d.Numbers.ContextWindow = in.usage.InputTokens, in.usage.ContextWindow
	}
	// Step 1: a missing or changed pin reseeds, and nothing is inferred.
	if in.pin == nil {
		d.Decision, d.Reason = Reseed, ReasonPinMissing
		if in.claimed != nil {
			d.Reason = ReasonPinChanged
		}
		d.Reseed = &Outcome{Problems: []string{ProblemPinUnrecoverable}}
		return d
	}
	d.Plan = planRecord(t.cur.plan, *in.pin)
	b := buildQuery(t.cur)
	d.Numbers.QueryTokens = EstimateTokens(b.query)
	d.Numbers.OverheadTokens = o.ReseedOverhead
	d.Numbers.ReconstructionTokens = d.Numbers.QueryTokens + o.ReseedOverhead
	d.Decision, d.Reason = Reseed, reseedReason(in, t, d.Numbers, o)
	if d.Reason == "" {
		d.Decision, d.Reason = Append, ReasonTaskSharpened
		if t.pinNew && t.n.NewWitnesses == 0 {
			d.Reason = ReasonTaskEstablished
		}
		return d
	}
	// Step 7: the query alone must name the pin and the next action.
	problems := verifyQuery(b.query, *in.pin, b.next, t.nextSeq)
	problems = append(problems, verifyState(b.query, b, t.cur)...)
	if (d.Reason == ReasonContextPressure || d.Reason == ReasonCompaction) &&
		d.Numbers.QueryTokens >= d.Numbers.RetainedTokens {
		problems = append(problems, ProblemNotSmaller)
	}
	d.Reseed = &Outcome{Complete: len(problems) == 0, Problems: problems}
	if d.Reseed.Problems == nil {
		d.Reseed.Problems = []string{}
	}
	if d.Reseed.Complete {
		d.Reseed.Projection = project(in, t, b, d.Reason)
	}
	return d
}

// reseedReason applies steps 1 and 4–6 in order and returns why the
// boundary reseeds, or "" when the turn is appended.
func reseedReason(in input, t tally, n Numbers, o Options) Reason {
	switch {
	case in.lastDigest != "" && in.lastDigest != in.pin.Digest,
		in.lastDigest == "" && (in.pin.Source == SourcePinTask || in.pin.Source == SourceReplacement):
		return ReasonTaskChanged
	case in.trigger == CompactionStart:
		return ReasonCompaction
	case in.trigger == ContextPressure || underPressure(in.usage, in.lastThrough, o):
		return ReasonContextPressure
	case n.StaleTokens > 0 && float64(n.StaleTokens) > o.ResidueRatio*float64(n.KeptTokens):
		return ReasonResidueDominates
	case n.NewWitnesses == 0 && !t.pinNew:
		return ReasonNoNewWitness
	case n.RetainedTokens > n.ReconstructionTokens:
		return ReasonReconstructionCheaper
	}
	return ""
}

// underPressure reports whether a usage event newer than the last decision
// crossed the pressure ratio.
func underPressure(u *Usage, after int64, o Options) bool {
	return u != nil && u.Seq > after && float64(u.InputTokens) >= o.PressureRatio*float64(u.ContextWindow)
}

func pinRecord(in input) PinRecord {
	p := in.pin
	if p == nil {
		p = in.claimed
	}
	r := PinRecord{Recoverable: in.pin != nil, Problem: in.pinProblem}
	if p != nil {
		digest, ev := p.Digest, eventID(p.EventID)
		r.Digest, r.EventID = &digest, &ev
		r.Source, r.Reason = p.Source, p.Reason
		if p.OriginSession != in.sessionID {
			r.OriginSession = p.OriginSession
		}
	}
	return r
}

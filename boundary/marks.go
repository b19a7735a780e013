package boundary

// Boundary events. Observe notes each one as a mark, so that a decision
// made later (the lead queues decisions off the read loop) still covers
// exactly the events up to its own boundary, not the next turn's events
// that may have arrived meanwhile.
const (
	EventTurnEnd         = "turn/end"
	EventCompactionStart = "compaction/start"
)

// mark is one boundary event not yet decided: its trigger, its seq, and
// for a usage event the usage it reported.
type mark struct {
	trigger Trigger
	seq     int64
	usage   *Usage
}

// markFor returns the boundary an event is, if any.
func markFor(typ string, seq int64, u *Usage) (mark, bool) {
	switch {
	case typ == EventTurnEnd:
		return mark{trigger: TurnEnd, seq: seq}, true
	case typ == EventCompactionStart:
		return mark{trigger: CompactionStart, seq: seq}, true
	case u != nil:
		return mark{trigger: ContextPressure, seq: seq, usage: u}, true
	}
	return mark{}, false
}

// boundFor prunes marks a decision already covered and returns the seq a
// decision at trigger covers: the earliest undecided boundary event of that
// kind (for context pressure, the earliest usage over the ratio). It
// returns 0 — everything observed — when there is no such event (the
// lead's own pressure trigger), when the boundary is the latest event
// anyway, or when a compaction checkpoint after it has already replaced
// the view the boundary saw.
func (st *sessionState) boundFor(at Trigger, o Options) int64 {
	kept := st.marks[:0]
	for _, m := range st.marks {
		if m.seq > st.lastDecided {
			kept = append(kept, m)
		}
	}
	st.marks = kept
	for _, m := range st.marks {
		if m.trigger != at || at == ContextPressure && !underPressure(m.usage, st.lastDecided, o) {
			continue
		}
		if m.seq >= st.lastSeq || st.lastCheckpoint > m.seq {
			return 0
		}
		return m.seq
	}
	return 0
}

// through cuts a snapshot back to the events up to bound (0: no cut). The
// pending witnesses stay a prefix, so Decide still consumes exactly the
// ones it stored.
func (s snapshot) through(bound int64, marks []mark) snapshot {
	if bound <= 0 || bound >= s.lastSeq {
		return s
	}
	view := s.view[:0:0]
	for _, it := range s.view {
		if it.Seq <= bound {
			view = append(view, it)
		}
	}
	n := 0
	for n < len(s.pending) && s.pending[n].Seq <= bound {
		n++
	}
	s.view, s.pending, s.lastSeq = view, s.pending[:n], bound
	if s.firstUser != nil && s.firstUser.Seq > bound {
		s.firstUser = nil
	}
	if s.usage != nil && s.usage.Seq > bound {
		s.usage = nil
		for _, m := range marks {
			if m.usage != nil && m.seq <= bound {
				u := *m.usage
				s.usage = &u
			}
		}
	}
	return s
}

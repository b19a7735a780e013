package boundary

import "context"

// maxReadSeq bounds a re-read whose end is unknown; it is the largest
// integer JSON carries exactly.
const maxReadSeq = 1<<53 - 1

// backfill rebuilds the start of a session the service did not observe from
// its first event (after a restart, or when the plugin loaded mid-session)
// by re-reading it through Options.Sessions. Without Sessions, or when the
// host's answer is incomplete, the view stays partial: decisions say so in
// viewComplete, and the default pin is never taken from a fragment.
func (s *Service) backfill(ctx context.Context, sessionID string, st *sessionState) {
	s.mu.Lock()
	done, seen, first := st.fromStart, st.seen, st.firstSeq
	s.mu.Unlock()
	if done || s.opts.Sessions == nil {
		return
	}
	to := int64(maxReadSeq)
	if seen {
		to = first - 1
	}
	res, err := s.opts.Sessions.Read(ctx, sessionID, 1, to)
	if err != nil {
		return
	}
	earlier := &sessionState{}
	for _, ev := range res.Events {
		if ev.Seq <= to {
			earlier.apply(ev)
		}
	}
	s.mu.Lock()
	st.absorb(earlier, res.Complete)
	s.mu.Unlock()
}

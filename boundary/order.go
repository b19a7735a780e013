package boundary

import (
	"context"
	"time"
)

// A decision is part of the notification order: the host sends turn/end
// and then asks continuity.boundary, and the answer must be that turn's
// decision, not "not decided" or the turn before's. Decisions are made off
// the read loop (they may read the session from the host), so the Remote
// waits — up to maxDecisionWait — until every boundary observed before it
// has had its decision attempted. Notifications are applied before any
// later request is handled, so the boundary is already observed when the
// Remote call arrives.

// maxDecisionWait bounds the wait; a decision slower than this (a host
// read that stalls) answers with the latest record there is.
const maxDecisionWait = 10 * time.Second

// waitDecided blocks until the session's latest observed turn/end or
// compaction/start is covered by a decision attempt, ctx ends, or
// maxDecisionWait passes.
func (s *Service) waitDecided(ctx context.Context, sessionID string) {
	if checkSessionID(sessionID) != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, maxDecisionWait)
	defer cancel()
	st := s.state(sessionID)
	for {
		s.mu.Lock()
		if st.settledSeq >= st.boundarySeq {
			s.mu.Unlock()
			return
		}
		if st.settled == nil {
			st.settled = make(chan struct{})
		}
		ch := st.settled
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// settle records that a decision attempt covered the events through seq,
// whether it succeeded or not, and wakes the waiters.
func (s *Service) settle(st *sessionState, seq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.settledSeq = max(st.settledSeq, seq)
	if st.settled != nil {
		close(st.settled)
		st.settled = nil
	}
}

// promptOfTurn is the seq of the person's latest prompt in the given turn,
// or 0 when none was observed (PinTask then takes the latest prompt).
func (s *Service) promptOfTurn(sessionID string, turn int64) int64 {
	if checkSessionID(sessionID) != nil {
		return 0
	}
	st := s.state(sessionID)
	s.mu.Lock()
	defer s.mu.Unlock()
	return st.turnPrompt[turn]
}

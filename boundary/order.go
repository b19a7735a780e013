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
// has had its decision attempted: the lead queues one decision per
// turn/end and compaction/start, so the service counts both. Notifications
// are applied before any later request is handled, so the boundary is
// already counted when the Remote call arrives.

// maxDecisionWait bounds the wait; a decision slower than this (a host
// read that stalls) answers with the latest record there is.
const maxDecisionWait = 10 * time.Second

// waitDecided blocks until every turn/end and compaction/start observed
// in the session has had its decision attempted, ctx ends, or
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
		if st.attempted >= st.boundaries {
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

// settle records that a decision at trigger at was attempted, whether it
// succeeded or not, and wakes the waiters. Pressure decisions are not
// counted: no turn/end or compaction/start asked for them.
func (s *Service) settle(st *sessionState, at Trigger) {
	if at != TurnEnd && at != CompactionStart {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.attempted++
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

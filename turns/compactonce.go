package turns

import "github.com/continuity-dev/continuity/diag"

// onceLifeMs bounds how long a visible-history compaction grant waits for
// its compaction to start: the command starts it at once, and a grant the
// host never used must not authorize a summary much later.
const onceLifeMs = 120_000

// VisibleHistoryCompaction is the continuity/compactVisibleHistory value.
type VisibleHistoryCompaction struct {
	Authorized   bool   `json:"authorized"`
	CompactionID string `json:"compactionId,omitempty"`
	ExpiresAt    int64  `json:"expiresAt,omitempty"`
}

// onceGrant is a pending one-operation grant: the next manual compaction
// of the session (or the one named) keeps visible history.
type onceGrant struct {
	compactionID string
	expiresAt    int64
}

// CompactVisibleHistory authorizes exactly one manual compaction of the
// session to omit historical encrypted reasoning while the persistent
// policy stays as it is (seed 003: `/copilot-compact visible-history`, its
// consent never made persistent). Named by compactionID it applies to that
// bracket (open or about to open); without, to the next manual bracket to
// start. Nothing is written to settings; the grant is spent by the bracket
// and lapses after two minutes unused.
func (m *Manager) CompactVisibleHistory(sessionID, compactionID string) (VisibleHistoryCompaction, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(sessionID)
	if s.disposed {
		return VisibleHistoryCompaction{}, diag.New(diag.CompactionAgentUnavailable, "the agent was disposed")
	}
	if compactionID != "" {
		if br := s.comp.open[compactionID]; br != nil {
			if br.turn != nil {
				return VisibleHistoryCompaction{}, diag.Newf(diag.CompactionScopeMismatch,
					"compaction %s belongs to a turn: it runs under that turn's policy", compactionID)
			}
			on := true
			br.policy = &on
			return VisibleHistoryCompaction{Authorized: true, CompactionID: compactionID}, nil
		}
	}
	g := &onceGrant{compactionID: compactionID, expiresAt: m.nowMs() + onceLifeMs}
	s.once = g
	return VisibleHistoryCompaction{Authorized: true, CompactionID: compactionID, ExpiresAt: g.expiresAt}, nil
}

// spendOnceLocked gives a manual bracket that is starting the session's
// pending grant, if it is for this bracket and has not lapsed (m.mu held).
func (m *Manager) spendOnceLocked(s *session, br *bracket) {
	g := s.once
	if g == nil || br.turn != nil {
		return
	}
	if g.expiresAt <= m.nowMs() {
		s.once = nil
		return
	}
	if g.compactionID != "" && g.compactionID != br.id {
		return
	}
	s.once = nil
	on := true
	br.policy = &on
}

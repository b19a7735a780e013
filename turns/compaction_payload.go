package turns

import (
	"context"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/filter"
)

// compactionPayload filters one summary payload of an open bracket. Every
// segment gets a fresh baseline, so all historical encrypted reasoning is
// omitted while visible checkpoints remain. The order of the checks is the
// order of the evidence: a bracket must have been seen open, belong to this
// agent and turn, the agent must be found by the host, the model must be
// the bracket's, and the bracket's policy must be known.
func (m *Manager) compactionPayload(ctx context.Context, req PayloadRequest, payload []byte) (PayloadResult, error) {
	if req.CompactionID == "" {
		return PayloadResult{}, diag.New(diag.CompactionScopeUnavailable, "a compaction payload needs a compactionId")
	}
	m.mu.Lock()
	br, err := m.openBracketLocked(req)
	m.mu.Unlock()
	if err != nil {
		return PayloadResult{}, err
	}
	if m.opt.Agents == nil {
		return PayloadResult{}, diag.New(diag.CompactionAgentUnavailable, "no agent lookup is configured")
	}
	ag, err := m.opt.Agents.Get(ctx, req.SessionID)
	if err == nil && ag.SessionID != req.SessionID {
		err = diag.New(diag.CompactionAgentUnavailable, "the host answered for another agent")
	}
	if err != nil {
		if ctx.Err() != nil {
			return PayloadResult{}, ctx.Err()
		}
		return PayloadResult{}, diag.Newf(diag.CompactionAgentUnavailable, "the agent of compaction %s could not be looked up", req.CompactionID)
	}

	m.mu.Lock()
	if err := bracketRevoked(br); err != nil {
		m.mu.Unlock()
		return PayloadResult{}, err
	}
	if br.model == "" {
		br.model = req.Model
	}
	if br.model != req.Model {
		m.mu.Unlock()
		return PayloadResult{}, diag.Newf(diag.CompactionModelChanged, "compaction %s is pinned to another model", req.CompactionID)
	}
	if s := m.sessions[req.SessionID]; s != nil {
		m.capturePolicyLocked(s, br)
	}
	policy, turn := br.policy, br.turn
	header := ag.Header
	if s := m.sessions[req.SessionID]; header == nil && s != nil {
		header = s.header
	}
	m.mu.Unlock()

	if policy == nil && turn != nil {
		// A turn's summary runs under that turn's captured policy; this
		// process never admitted the turn, so it cannot know it.
		return PayloadResult{}, diag.Newf(diag.CompactionBoundaryUnavailable,
			"compaction %s belongs to turn %d, whose admission was not seen", req.CompactionID, *turn)
	}
	if policy == nil {
		// An idle manual compaction reads the current session policy (not
		// one-turn consent, which never authorizes a summary) and keeps it
		// for the whole bracket.
		res, err := m.opt.Policy.Resolve(ctx, req.SessionID, header)
		if err != nil {
			return PayloadResult{}, err
		}
		on := res.Enabled
		m.mu.Lock()
		if br.policy == nil {
			br.policy = &on
		}
		policy = br.policy
		m.mu.Unlock()
	}
	if !*policy {
		return m.nativeResult(req, payload), nil
	}
	revoked := func() error {
		m.mu.Lock()
		defer m.mu.Unlock()
		return bracketRevoked(br)
	}
	seg := filter.NewTurn(filter.Options{StripPairedIDs: m.opt.Providers.stripsPairedIDs(req.Provider), Prevalidated: true, NoCopy: true})
	res, err := seg.Apply(ctx, payload, revoked)
	if err != nil {
		return PayloadResult{}, err
	}
	out := PayloadResult{Outcome: OutcomeUnchanged, Omitted: res.Omitted, SHA256: res.SHA256}
	if res.Changed() {
		out.Outcome, out.Output = OutcomeFiltered, res.Pieces
	}
	m.mu.Lock()
	br.counts.add(res.Omitted)
	m.mu.Unlock()
	return out, nil
}

// openBracketLocked finds the running bracket a compaction payload names in
// its own session, or says why there is none: refused by the open limit,
// open in another agent (scope mismatch), ended (revoked), or never seen.
func (m *Manager) openBracketLocked(req PayloadRequest) (*bracket, error) {
	id := req.CompactionID
	if s := m.sessions[req.SessionID]; s != nil {
		if br := s.comp.find(id); br != nil {
			if err := bracketRevoked(br); err != nil {
				return nil, err
			}
			if br.turn != nil && *br.turn != req.Turn {
				return nil, diag.Newf(diag.CompactionScopeMismatch, "compaction %s belongs to turn %d", id, *br.turn)
			}
			return br, nil
		}
		if s.comp.wasRefused(id) {
			return nil, diag.Newf(diag.CompactionLimit, "more than %d compactions were open", maxOpenBrackets).With("limit", maxOpenBrackets)
		}
	}
	for _, s := range m.sessions {
		if s.comp.open[id] != nil {
			return nil, diag.Newf(diag.CompactionScopeMismatch, "compaction %s belongs to another agent", id)
		}
	}
	// A bracket this process never saw open (DSH Copilot plugin's code).
	return nil, diag.Newf(diag.CompactionBoundaryUnavailable, "no open compaction %s was seen", id)
}

// bracketRevoked is the revocation check of a bracket's payloads: its
// agent was disposed or the bracket ended. Manager.mu is held.
func bracketRevoked(br *bracket) error {
	if br.revoked != "" {
		return diag.New(diag.Revoked, br.revoked)
	}
	if br.state != StateRunning {
		return diag.Newf(diag.Revoked, "compaction %s has ended", br.id)
	}
	return nil
}

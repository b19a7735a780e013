package turns

import (
	"github.com/continuity-dev/continuity/diag"
)

func (m *Manager) nowMs() int64 { return m.opt.Now().UnixMilli() }

// filtered updates and sends the turn's notice after a payload took part:
// what this turn omitted so far, or that nothing needed omitting.
// The counts are folded and the notice queued under one lock, so that the
// events go out in the order the counts grew.
func (m *Manager) filtered(a *admission, req PayloadRequest, out PayloadResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a.mu.Lock()
	a.counts.add(out.Omitted)
	c := a.counts
	a.mu.Unlock()
	now := m.nowMs()
	turn := a.turn
	n := Notice{ID: turnNoticeID(turn), AgentID: a.sessionID, Turn: &turn, At: now, ExpiresAt: expires(now), RequestID: req.RequestID,
		Details: enabledDetails()}
	if c.Items > 0 {
		n.Kind, n.TextKey, n.Outcome, n.Filtered = "filtered", "notice.filtered", OutcomeFiltered, &c
	} else {
		n.Kind, n.TextKey, n.Outcome = "native", "notice.unchanged", OutcomeUnchanged
	}
	m.publishLocked(a.sessionID, n)
}

// nativeNotice records that a chat payload of a managed turn went native
// (policy off); other providers, purposes and unbound requests get none.
func (m *Manager) nativeNotice(req PayloadRequest) {
	if !m.opt.Providers.takesPart(req.Provider) || req.Purpose != "chat" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.requests.get(req.RequestID)
	if a == nil {
		return
	}
	a.mu.Lock()
	c := a.counts
	a.mu.Unlock()
	if c.Items > 0 {
		return // the turn already reports filtering
	}
	now := m.nowMs()
	turn := a.turn
	m.publishLocked(a.sessionID, Notice{ID: turnNoticeID(turn), AgentID: a.sessionID, Turn: &turn, Kind: "native",
		TextKey: "notice.native", Outcome: OutcomeNative, At: now, ExpiresAt: expires(now), RequestID: req.RequestID})
}

// diagnostic tells the user that a payload of the turn was refused with a
// named code (the host does not send it). Only the code goes out.
func (m *Manager) diagnostic(a *admission, req PayloadRequest, err error) {
	code := diag.CodeOf(err)
	if code == "" {
		return
	}
	now := m.nowMs()
	turn := a.turn
	m.publish(a.sessionID, Notice{ID: "diagnostic:" + req.RequestID, AgentID: a.sessionID, Turn: &turn, Kind: "diagnostic",
		TextKey: "notice.diagnostic", Code: code, At: now, ExpiresAt: expires(now), RequestID: req.RequestID})
}

// compactionNoticeLocked publishes a bracket's state; m.mu is held.
func (m *Manager) compactionNoticeLocked(s *session, br *bracket) {
	now := m.nowMs()
	n := Notice{ID: "compaction:" + br.id, AgentID: s.id, Turn: br.turn, Kind: "compaction",
		TextKey: "notice.compaction." + br.state, At: now, Compaction: &CompactionView{ID: br.id, State: br.state}}
	if br.state != StateRunning {
		n.ExpiresAt = expires(now)
	}
	if br.state == StateBlocked {
		// Stays until acted on: the offer saves the persistent policy.
		n.Policy = "off"
		n.Offer = enableOffer()
		n.ExpiresAt = nil
	}
	m.publishLocked(s.id, n)
}

// publish records a notice as live for its session and sends it.
func (m *Manager) publish(sessionID string, n Notice) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.publishLocked(sessionID, n)
}

// publishLocked is publish with m.mu held: the live set and the event
// queue change together, so events go out in the order the state changed.
func (m *Manager) publishLocked(sessionID string, n Notice) {
	if s := m.sessions[sessionID]; s != nil {
		s.notice.put(n)
	}
	m.notices.send(n)
}

// enableOffer is the loss-disclosed enable control with Cancel.
func enableOffer() *Offer {
	return &Offer{Action: "enableContinuation", TextKey: "offer.enable.title", DisclosureKey: "offer.disclosure",
		Choices: []Choice{{ID: "enable", TextKey: "offer.choice.enable"}, {ID: "cancel", TextKey: "offer.choice.cancel"}}}
}

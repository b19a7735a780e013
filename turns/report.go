package turns

import (
	"context"

	"github.com/continuity-dev/continuity/rejection"
)

func (m *Manager) nowMs() int64 { return m.opt.Now().UnixMilli() }

// filtered updates and sends the turn's notice after a payload took part.
func (m *Manager) filtered(a *admission, req PayloadRequest, out PayloadResult) {
	a.mu.Lock()
	a.counts.add(out.Omitted)
	c := a.counts
	a.mu.Unlock()
	now := m.nowMs()
	turn := a.turn
	n := Notice{ID: turnNoticeID(turn), AgentID: a.sessionID, Turn: &turn, At: now, ExpiresAt: expires(now), RequestID: req.RequestID}
	if c.Items > 0 || c.StrippedIDs > 0 {
		n.Kind, n.TextKey, n.Outcome, n.Filtered = "filtered", "notice.filtered", OutcomeFiltered, &c
		if c.Items == 0 {
			// Only paired ids went: report it as unchanged reasoning.
			n.Kind, n.TextKey, n.Outcome, n.Filtered = "native", "notice.unchanged", OutcomeUnchanged, nil
		}
	} else {
		n.Kind, n.TextKey, n.Outcome = "native", "notice.unchanged", OutcomeUnchanged
	}
	m.publish(a.sessionID, n)
}

// nativeNotice records that a chat payload of a managed turn went native
// (policy off or unbound); other providers and purposes get no notice.
func (m *Manager) nativeNotice(req PayloadRequest) {
	if req.Provider != Provider || req.Purpose != "chat" {
		return
	}
	a := m.bound(req.RequestID)
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
	m.publish(a.sessionID, Notice{ID: turnNoticeID(turn), AgentID: a.sessionID, Turn: &turn, Kind: "native",
		TextKey: "notice.native", Outcome: OutcomeNative, At: now, ExpiresAt: expires(now), RequestID: req.RequestID})
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
		n.Policy = "off"
		n.Offer = enableOffer()
		n.ExpiresAt = nil
	}
	s.notice.put(n)
	m.notices.send(n)
}

func (m *Manager) publish(sessionID string, n Notice) {
	m.mu.Lock()
	if s := m.sessions[sessionID]; s != nil {
		s.notice.put(n)
	}
	m.mu.Unlock()
	m.notices.send(n)
}

func enableOffer() *Offer {
	return &Offer{Action: "enableContinuation", TextKey: "offer.enable.title", DisclosureKey: "offer.disclosure",
		Choices: []Choice{{ID: "enable", TextKey: "offer.choice.enable"}, {ID: "cancel", TextKey: "offer.choice.cancel"}}}
}

// Response handles llm/response: a 408 makes the request's recorded bytes
// available to an exact retry; a replay rejection tells the user — with the
// enable offer when the turn ran with the policy off, with guidance when it
// was on. Unrelated failures offer nothing, and nothing is re-sent.
func (m *Manager) Response(requestID string, status int, errorBody string) {
	if status == 408 {
		m.timedOut(requestID)
	}
	if status < 400 || errorBody == "" {
		return
	}
	a := m.bound(requestID)
	if a == nil {
		return
	}
	v := rejection.Classify(status, errorBody)
	if !v.Rejected() {
		return
	}
	now := m.nowMs()
	turn := a.turn
	n := Notice{ID: "replay:" + requestID, AgentID: a.sessionID, Turn: &turn, Kind: "replayRejected", At: now,
		RequestID: requestID, Rejection: &RejectionView{Kind: string(v.Kind), Item: v.Item}, Policy: "off"}
	if a.enabled {
		n.Policy = "on"
	}
	switch {
	case !v.ReplayScope():
		n.TextKey, n.GuidanceKey = "replay.rejectedWhileOn", "replay.guidance.pairing"
	case a.enabled:
		n.TextKey, n.GuidanceKey = "replay.rejectedWhileOn", "replay.guidance.on"
	default:
		n.TextKey, n.Offer = "offer.enable.body", enableOffer()
	}
	m.publish(a.sessionID, n)
}

// NoticesView is the continuity.notices Remote value.
type NoticesView struct {
	AgentID string   `json:"agentId"`
	Notices []Notice `json:"notices"`
	PollMs  *int     `json:"pollMs"`
}

// Notices returns a session's live notices; pollMs is set only while one of
// its compaction brackets runs.
func (m *Manager) Notices(sessionID string) NoticesView {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := NoticesView{AgentID: sessionID, Notices: []Notice{}}
	s := m.sessions[sessionID]
	if s == nil {
		return v
	}
	v.Notices = s.notice.current(m.nowMs())
	if len(s.comp.open) > 0 {
		p := pollMs
		v.PollMs = &p
	}
	return v
}

// AccountSwitchView is the continuity.accountSwitch Remote value.
type AccountSwitchView struct {
	Pause      bool     `json:"pause"`
	Choices    []string `json:"choices,omitempty"`
	Disclosure string   `json:"disclosure,omitempty"`
	Reason     string   `json:"reason,omitempty"`
}

// AccountSwitch decides whether switching sessionID to accountID must pause
// for a choice: only when the persistent policy is off and the account
// really changes. The choices are persistent enable, keep off, or cancel.
func (m *Manager) AccountSwitch(ctx context.Context, sessionID, accountID string) (AccountSwitchView, error) {
	ag, err := m.opt.Agents.Get(ctx, sessionID)
	if err != nil {
		return AccountSwitchView{}, err
	}
	header := m.headerOf(sessionID)
	if header == nil {
		header = ag.Header
	}
	res, err := m.opt.Policy.Resolve(ctx, sessionID, header)
	if err != nil {
		return AccountSwitchView{}, err
	}
	last := m.LastAccount(sessionID)
	switch {
	case res.Enabled:
		return AccountSwitchView{Reason: "policyOn"}, nil
	case last == "":
		return AccountSwitchView{Reason: "noHistory"}, nil
	case last == accountID:
		return AccountSwitchView{Reason: "sameAccount"}, nil
	}
	now := m.nowMs()
	m.mu.Lock()
	s := m.sessionLocked(sessionID)
	turn := s.notice.turn
	m.mu.Unlock()
	m.publish(sessionID, Notice{ID: "account:" + accountID, AgentID: sessionID, Turn: &turn, Kind: "accountSwitch",
		TextKey: "accountSwitch.title", At: now, Policy: "off", Offer: &Offer{
			Action: "enableContinuation", TextKey: "accountSwitch.body", DisclosureKey: "accountSwitch.disclosure",
			Choices: []Choice{{ID: "enable", TextKey: "accountSwitch.choice.enable"},
				{ID: "keepOff", TextKey: "accountSwitch.choice.keepOff"},
				{ID: "cancel", TextKey: "accountSwitch.choice.cancel"}}}})
	return AccountSwitchView{Pause: true, Choices: []string{"enable", "keepOff", "cancel"}, Disclosure: "accountSwitch.disclosure"}, nil
}

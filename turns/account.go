package turns

import (
	"context"

	"github.com/continuity-dev/continuity/hostapi"
)

// AccountSwitchView is the continuity.accountSwitch Remote value.
type AccountSwitchView struct {
	Pause      bool     `json:"pause"`
	Choices    []string `json:"choices,omitempty"`
	Disclosure string   `json:"disclosure,omitempty"`
	Reason     string   `json:"reason,omitempty"`
}

// AccountSwitch decides whether switching sessionID to accountID must pause
// for a choice: only when the persistent policy is off and the account
// really differs from the one the session's history was made with. The
// choices are persistent enable, keep off, or cancel — no next-turn-only
// mode. A pause is also published as an accountSwitch notice.
func (m *Manager) AccountSwitch(ctx context.Context, sessionID, accountID string) (AccountSwitchView, error) {
	var header *hostapi.SessionHeader
	if m.opt.Agents != nil {
		ag, err := m.opt.Agents.Get(ctx, sessionID)
		if err != nil {
			return AccountSwitchView{}, err
		}
		header = ag.Header
	}
	if header == nil {
		header = m.headerOf(sessionID)
	}
	res, err := m.opt.Policy.Resolve(ctx, sessionID, header)
	if err != nil {
		return AccountSwitchView{}, err
	}
	last := m.LastAccount(sessionID)
	if last == "" && !res.Enabled {
		if last = m.keptAccount(ctx, sessionID); last == "" && header != nil && header.ParentSession != "" {
			// A fork or subagent that has not run a turn yet holds its
			// parent's history, made with the parent's account (DSH
			// names it in the header; there is no account event).
			if last = m.LastAccount(header.ParentSession); last == "" {
				last = m.keptAccount(ctx, header.ParentSession)
			}
		}
		if last != "" {
			m.mu.Lock()
			if s := m.sessionLocked(sessionID); s.account == "" {
				s.account = last
			}
			m.mu.Unlock()
		}
	}
	switch {
	case res.Enabled:
		return AccountSwitchView{Reason: "policyOn"}, nil
	case last == "":
		return AccountSwitchView{Reason: "noHistory"}, nil
	case last == AccountDigest(accountID):
		return AccountSwitchView{Reason: "sameAccount"}, nil
	}
	m.mu.Lock()
	s := m.sessionLocked(sessionID)
	m.publishLocked(sessionID, Notice{ID: "account:" + AccountDigest(accountID), AgentID: sessionID, Turn: s.notice.turn,
		Kind: "accountSwitch", TextKey: "accountSwitch.title", At: m.nowMs(), Policy: "off", Offer: &Offer{
			Action: "enableContinuation", TextKey: "accountSwitch.body", DisclosureKey: "accountSwitch.disclosure",
			Choices: []Choice{{ID: "enable", TextKey: "accountSwitch.choice.enable"},
				{ID: "keepOff", TextKey: "accountSwitch.choice.keepOff"},
				{ID: "cancel", TextKey: "accountSwitch.choice.cancel"}}}})
	m.mu.Unlock()
	return AccountSwitchView{Pause: true, Choices: []string{"enable", "keepOff", "cancel"}, Disclosure: "accountSwitch.disclosure"}, nil
}

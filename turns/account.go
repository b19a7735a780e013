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
	if m.unmanagedRoute(sessionID) {
		// The session runs on a route whose payloads continuity never
		// sees: a switch there has nothing to pause for.
		return AccountSwitchView{Reason: "notManaged"}, nil
	}
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
	last := ""
	if !res.Enabled {
		last = m.previousAccount(ctx, sessionID, header)
	}
	switch {
	case res.Enabled:
		return AccountSwitchView{Reason: "policyOn"}, nil
	case last == "":
		return AccountSwitchView{Reason: "noHistory"}, nil
	case last == AccountDigest(accountID) || m.acceptedAccount(sessionID, AccountDigest(accountID)):
		return AccountSwitchView{Reason: "sameAccount"}, nil
	}
	m.mu.Lock()
	m.publishAccountSwitchLocked(sessionID, nil, AccountDigest(accountID))
	m.mu.Unlock()
	return AccountSwitchView{Pause: true, Choices: accountChoices, Disclosure: "accountSwitch.disclosure"}, nil
}

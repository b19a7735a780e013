package turns

import (
	"context"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// The answers to an account-switch pause (continuity/accountSwitch choice).
const (
	ChoiceEnable  = "enable"
	ChoiceKeepOff = "keepOff"
	ChoiceCancel  = "cancel"
)

// accountChoices are the choices a pause offers, in the order shown.
var accountChoices = []string{ChoiceEnable, ChoiceKeepOff, ChoiceCancel}

// previousAccount is the digest of the account sessionID's history was last
// made with: what this process saw, else what an earlier process kept, else
// (a fork or subagent that has not run a turn yet holds its parent's
// history, made with the parent's account) the parent's. It is "" when no
// account is known. The digest found is remembered for the session.
func (m *Manager) previousAccount(ctx context.Context, sessionID string, header *hostapi.SessionHeader) string {
	if last := m.LastAccount(sessionID); last != "" {
		return last
	}
	last := m.keptAccount(ctx, sessionID)
	if last == "" && header != nil && header.ParentSession != "" {
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
	return last
}

// consentPending reports whether a legacy one-turn consent waits for the
// session: that turn is filtered, so an account switch needs no choice.
func (m *Manager) consentPending(sessionID string) bool {
	c, ok := m.opt.Consent.(interface{ Authorized(string) bool })
	return ok && c.Authorized(sessionID)
}

// accountSwitchPause is the error agent/request answers when the first
// request of a turn names an account other than the one the session's
// history was made with while the policy is off (issue 28 #1): DSH has no
// account event, so without this the person would meet the supplier's
// rejection of the old account's reasoning. The accountSwitch notice
// carries the choices; the request is admitted once one is made.
func (m *Manager) accountSwitchPause(sessionID string, turn int64, digest string) error {
	m.mu.Lock()
	m.publishAccountSwitchLocked(sessionID, &turn, digest)
	m.mu.Unlock()
	return diag.New(diag.AccountSwitchPaused,
		"the account changed while visible-history continuation is off for this session; choose enable for this session, keep off or cancel (continuity/accountSwitch with choice), then send the request again").
		With("choices", accountChoices).With("noticeId", accountNoticeID(digest))
}

// acceptedAccount reports whether the person chose to go on with digest
// after a pause.
func (m *Manager) acceptedAccount(sessionID, digest string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[sessionID]
	return s != nil && s.accepted == digest
}

// accountNoticeID names the accountSwitch notice of a switch to digest.
func accountNoticeID(digest string) string { return "account:" + digest }

// publishAccountSwitchLocked sends the accountSwitch notice (m.mu held).
// turn is the turn that waits, or nil when none is known (a client's own
// continuity/accountSwitch query).
func (m *Manager) publishAccountSwitchLocked(sessionID string, turn *int64, digest string) {
	s := m.sessionLocked(sessionID)
	if turn == nil {
		turn = s.notice.turn
	}
	choices := make([]Choice, 0, len(accountChoices))
	for _, id := range accountChoices {
		choices = append(choices, Choice{ID: id, TextKey: "accountSwitch.choice." + id})
	}
	m.publishLocked(sessionID, Notice{ID: accountNoticeID(digest), AgentID: sessionID, Turn: turn,
		Kind: "accountSwitch", TextKey: "accountSwitch.title", At: m.nowMs(), Policy: "off", Offer: &Offer{
			Action: "enableContinuation", TextKey: "accountSwitch.body", DisclosureKey: "accountSwitch.disclosure",
			Choices: choices}})
}

// ChooseAccount records the person's answer to an account-switch pause.
// enable (the caller has written the session's policy on) and keepOff
// accept accountID as the session's account, kept across restarts, so the
// next agent/request goes through — filtered, or as it is. cancel changes
// nothing: the account stays the old one, and a request that names the
// new one pauses again. The pause's notice is withdrawn in every case.
func (m *Manager) ChooseAccount(ctx context.Context, sessionID, accountID, choice string) (AccountSwitchView, error) {
	digest := AccountDigest(accountID)
	m.mu.Lock()
	s := m.sessionLocked(sessionID)
	delete(s.notice.live, accountNoticeID(digest))
	if choice != ChoiceCancel {
		s.account, s.accepted = digest, digest
	}
	m.mu.Unlock()
	if choice == ChoiceCancel {
		return AccountSwitchView{Reason: "cancelled"}, nil
	}
	if m.opt.Accounts != nil {
		if err := m.opt.Accounts.Save(ctx, sessionID, digest); err != nil {
			return AccountSwitchView{}, diag.Wrap(diag.StorageUnavailable, "the chosen account could not be kept", err)
		}
	}
	if choice == ChoiceEnable {
		return AccountSwitchView{Reason: "enabled"}, nil
	}
	return AccountSwitchView{Reason: "keptOff"}, nil
}

// noteRoute records whether the session's latest agent/request was on a
// provider that takes part.
func (m *Manager) noteRoute(sessionID string, managed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sessionLocked(sessionID).unmanaged = !managed
}

// unmanagedRoute reports whether the session's latest agent/request was on
// a provider that does not take part.
func (m *Manager) unmanagedRoute(sessionID string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[sessionID]
	return s != nil && s.unmanaged
}

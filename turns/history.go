package turns

import (
	"context"
	"encoding/json"

	"go.uber.org/zap"
)

// historyPages bounds how much of a session's log accountOfHistory reads.
const (
	historyPage  = 1000
	historyPages = 64
)

// keptAccount recovers, after a restart, the digest of the account a
// session's history was last made with: the digest kept from its last
// admission (DSH names the account only in agent/request), else the host's
// log.
func (m *Manager) keptAccount(ctx context.Context, sessionID string) string {
	if m.opt.Accounts != nil {
		d, err := m.opt.Accounts.Load(ctx, sessionID)
		if err == nil && d != "" {
			return d
		}
		if err != nil {
			m.opt.Log.Warn("kept account not read", zap.String("session", sessionID), zap.Error(err))
		}
	}
	return m.accountOfHistory(ctx, sessionID)
}

// accountOfHistory recovers, from the host's session log, the digest of the
// account a session's history was last made with: the last account/selected
// before its last turn/start (hosts that are not DSH send that event). A restarted plugin has no memory of earlier turns,
// and without this an account switch after a restart would not pause.
// It returns "" when the host offers no session reads or the log names no
// account.
func (m *Manager) accountOfHistory(ctx context.Context, sessionID string) string {
	if m.opt.Sessions == nil {
		return ""
	}
	var selected, beforeTurn string
	from := int64(0)
	for page := 0; page < historyPages; page++ {
		evs, err := m.opt.Sessions.Read(ctx, sessionID, from, from+historyPage-1)
		if err != nil {
			return ""
		}
		for _, ev := range evs.Events {
			switch ev.Type {
			case "account/selected":
				var d struct {
					AccountID string `json:"accountId"`
				}
				if json.Unmarshal(ev.Data, &d) == nil && d.AccountID != "" {
					selected = AccountDigest(d.AccountID)
				}
			case "turn/start":
				beforeTurn = selected
			}
			from = max(from, ev.Seq+1)
		}
		if len(evs.Events) == 0 || evs.Complete && len(evs.Events) < historyPage {
			break
		}
	}
	return beforeTurn
}

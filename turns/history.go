package turns

import (
	"context"
	"encoding/json"
)

// historyPages bounds how much of a session's log accountOfHistory reads.
const (
	historyPage  = 1000
	historyPages = 64
)

// accountOfHistory recovers, from the host's session log, the account a
// session's history was last made with: the last account/selected before
// its last turn/start. A restarted plugin has no memory of earlier turns,
// and without this an account switch after a restart would not pause.
// It returns "" when the host offers no session reads or the log names no
// account.
func (m *Manager) accountOfHistory(ctx context.Context, sessionID string) string {
	if m.opt.Sessions == nil {
		return ""
	}
	var selected, beforeTurn string
	from := int64(1)
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
					selected = d.AccountID
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

package proxy

import (
	"cmp"
	"slices"
	"strings"
)

// TurnView is what one recent turn of a session sent and omitted.
type TurnView struct {
	Seq int `json:"seq"`
	// At is when the turn's last request was sent (ms since the epoch).
	At                int64  `json:"at"`
	Requests          int    `json:"requests"`
	Account           string `json:"account"` // short digest of the last request's account
	Policy            string `json:"policy"`  // "on" or "off" at the last request
	OmittedReasoning  int    `json:"omittedReasoning"`
	OmittedCompaction int    `json:"omittedCompaction"`
	// The omitted reasoning and compaction items split by why: recorded as
	// issued to another issuer (upstream and account), or of no issuer the
	// ledger knows.
	OmittedForeign int `json:"omittedForeign"`
	OmittedUnknown int `json:"omittedUnknown"`
	StrippedIDs    int `json:"strippedIds"`
}

// RejectionView is one upstream error the detector classified as a replay
// rejection: its kind and item id, never its text.
type RejectionView struct {
	At     int64  `json:"at"`   // ms since the epoch
	Turn   int    `json:"turn"` // the seq of the turn it answered
	Status int    `json:"status"`
	Kind   string `json:"kind"`
	Item   string `json:"item,omitempty"`
	Policy string `json:"policy"`
	Hinted bool   `json:"hinted"`
}

// SessionView is one session as the status page shows it.
type SessionView struct {
	ID         string          `json:"id"`
	Client     string          `json:"client"`
	Account    string          `json:"account"`  // short digest of the last account
	Accounts   int             `json:"accounts"` // distinct accounts seen
	FirstSeen  int64           `json:"firstSeen"`
	LastSeen   int64           `json:"lastSeen"`
	Policy     string          `json:"policy"` // filled in by the caller
	Source     string          `json:"source"` // "session" or "default"
	Turns      []TurnView      `json:"turns"`
	Rejections []RejectionView `json:"rejections"`
}

// views returns the sessions, most recently seen first.
func (r *registry) views() []SessionView {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]SessionView, 0, len(r.sessions))
	for _, s := range r.sessions {
		out = append(out, SessionView{ID: s.id, Client: s.client, Account: s.last.Short(), Accounts: len(s.accounts),
			FirstSeen: s.firstSeen.UnixMilli(), LastSeen: s.lastSeen.UnixMilli(),
			Turns: append([]TurnView{}, s.recent...), Rejections: append([]RejectionView{}, s.rejections...)})
	}
	slices.SortFunc(out, func(a, b SessionView) int {
		return cmp.Or(cmp.Compare(b.LastSeen, a.LastSeen), strings.Compare(a.ID, b.ID))
	})
	return out
}

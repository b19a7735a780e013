package proxy

import (
	"context"
	"database/sql"
	"errors"

	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
)

// Known is one session a proxy on a data directory has seen, as the
// ledger has it, with the policy a proxy applies to it now and where that
// comes from: what `continuity policy` prints and the page lists, resolved
// the same way (the session's own row, else the default its first-seen
// time selects).
type Known struct {
	ID        string `json:"id"`
	Client    string `json:"client"`
	FirstSeen int64  `json:"firstSeen"` // ms since the epoch
	LastSeen  int64  `json:"lastSeen"`
	Policy    string `json:"policy"` // "on" or "off"
	Source    string `json:"source"` // "session" or "default"
}

// KnownSessions lists the sessions the ledger in db knows, most recently
// seen first, at most maxSessions of them.
func KnownSessions(ctx context.Context, db *sql.DB, pol *settings.Policy) ([]Known, error) {
	l, err := openLedger(ctx, db)
	if err != nil {
		return nil, err
	}
	rows, err := l.sessions(ctx, maxSessions)
	if err != nil {
		return nil, err
	}
	out := make([]Known, 0, len(rows))
	for _, r := range rows {
		k := Known{ID: r.session, Client: r.client, FirstSeen: r.firstSeen, LastSeen: r.lastSeen}
		if k.Policy, k.Source, err = applied(ctx, pol, r.session, r.firstSeen); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// KnownSession returns one session of the ledger in db; ok is false when
// no proxy on the data directory has seen it.
func KnownSession(ctx context.Context, db *sql.DB, pol *settings.Policy, session string) (k Known, ok bool, err error) {
	l, err := openLedger(ctx, db)
	if err != nil {
		return k, false, err
	}
	k.ID = session
	err = l.db.QueryRowContext(ctx, `SELECT client, first_seen, MAX(first_seen, last_seen) FROM proxy_sessions WHERE session = ?`,
		session).Scan(&k.Client, &k.FirstSeen, &k.LastSeen)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return k, false, nil
	case err != nil:
		return k, false, storageErr("reading a session", err)
	}
	k.Policy, k.Source, err = applied(ctx, pol, session, k.FirstSeen)
	return k, err == nil, err
}

// applied is the policy a proxy applies to session, born at born (ms),
// and its source.
func applied(ctx context.Context, pol *settings.Policy, session string, born int64) (policy, source string, err error) {
	res, err := pol.Resolve(ctx, session, &hostapi.SessionHeader{CreatedAt: &born})
	if err != nil {
		return "", "", err
	}
	return onOff(res.Enabled), res.Source, nil
}

package proxy

import (
	"context"
	"database/sql"
	"errors"
)

// seen records that session was seen at now (ms) from client ("" leaves
// the client as it was): the page and `continuity policy` list sessions
// from these rows after a restart.
func (l *ledger) seen(ctx context.Context, session, client string, now int64) error {
	_, err := l.db.ExecContext(ctx, `UPDATE proxy_sessions SET last_seen = MAX(last_seen, ?),
		client = CASE WHEN ? = '' THEN client ELSE ? END WHERE session = ?`, now, client, client, session)
	if err != nil {
		return storageErr("recording when a session was last seen", err)
	}
	return nil
}

// sessionRow is one session of the ledger.
type sessionRow struct {
	session, client     string
	firstSeen, lastSeen int64
}

// sessions lists at most limit sessions, most recently seen first.
func (l *ledger) sessions(ctx context.Context, limit int) ([]sessionRow, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT session, client, first_seen, MAX(first_seen, last_seen) AS seen
		FROM proxy_sessions ORDER BY seen DESC, session LIMIT ?`, limit)
	if err != nil {
		return nil, storageErr("listing sessions", err)
	}
	defer rows.Close()
	var out []sessionRow
	for rows.Next() {
		var r sessionRow
		if err := rows.Scan(&r.session, &r.client, &r.firstSeen, &r.lastSeen); err != nil {
			return nil, storageErr("listing sessions", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, storageErr("listing sessions", err)
	}
	return out, nil
}

// bornAt returns when session was first seen, ok false when no proxy on
// this data directory has seen it.
func (l *ledger) bornAt(ctx context.Context, session string) (at int64, ok bool, err error) {
	err = l.db.QueryRowContext(ctx, `SELECT first_seen FROM proxy_sessions WHERE session = ?`, session).Scan(&at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, storageErr("reading when a session was first seen", err)
	}
	return at, true, nil
}

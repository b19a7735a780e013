package proxy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/sqlstore"
)

// Bounds of the ledger; past them the oldest rows go first. An issuance row
// is some 100 bytes with its index, so the ledger stays under about 30 MB.
const (
	maxLedgerIssued   = 1 << 18 // item fingerprints with their issuer
	maxLedgerAccounts = 1 << 16 // (session, account) pairs
	maxLedgerSessions = 1 << 16 // sessions with the time first seen
)

// ledgerSchema is the proxy's part of continuity.db. Rows are digests: the
// SHA-256 fingerprint of an item's encrypted_content, the account digest of
// accountOf, and the session key the client sent. seq orders rows for
// eviction: SQLite gives a new row the largest seq plus one.
var ledgerSchema = []string{`
CREATE TABLE proxy_issued (
	seq         INTEGER PRIMARY KEY,
	fingerprint BLOB NOT NULL UNIQUE,
	account     BLOB NOT NULL
);
CREATE TABLE proxy_session_accounts (
	seq     INTEGER PRIMARY KEY,
	session TEXT NOT NULL,
	account BLOB NOT NULL,
	UNIQUE (session, account)
);
CREATE TABLE proxy_sessions (
	seq        INTEGER PRIMARY KEY,
	session    TEXT NOT NULL UNIQUE,
	first_seen INTEGER NOT NULL
);`, `
ALTER TABLE proxy_sessions ADD COLUMN client TEXT NOT NULL DEFAULT '';
ALTER TABLE proxy_sessions ADD COLUMN last_seen INTEGER NOT NULL DEFAULT 0;`}

// ledger is what the provenance rule needs to survive a restart, kept in
// the data directory's continuity.db: which account each reasoning and
// compaction item was issued to, and which accounts each session was seen
// with. SQLite rather than the settings store because these are many small
// rows looked up by key, written by every response; its WAL and busy
// timeout (package sqlstore) let two proxies on one data directory share
// it, and a crash loses at most the transaction in flight.
type ledger struct {
	db *sql.DB
	// The bounds: maxLedgerIssued, maxLedgerAccounts, maxLedgerSessions.
	maxIssued, maxAccounts, maxSessions int
	writes                              ledgerWrites
}

// openLedger migrates the proxy's tables in db.
func openLedger(ctx context.Context, db *sql.DB) (*ledger, error) {
	if err := sqlstore.Migrate(ctx, db, "proxy", ledgerSchema); err != nil {
		return nil, storageErr("the proxy's tables", err)
	}
	return &ledger{db: db, maxIssued: maxLedgerIssued, maxAccounts: maxLedgerAccounts, maxSessions: maxLedgerSessions}, nil
}

// issuer returns the account fp was issued to; ok is false when the ledger
// has no record of it.
func (l *ledger) issuer(ctx context.Context, fp [32]byte) (a Account, ok bool, err error) {
	var b []byte
	err = l.db.QueryRowContext(ctx, `SELECT account FROM proxy_issued WHERE fingerprint = ?`, fp[:]).Scan(&b)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return a, false, nil
	case err != nil:
		return a, false, storageErr("reading an item's issuer", err)
	case len(b) != len(a):
		return a, false, storageErr("reading an item's issuer", fmt.Errorf("account digest of %d bytes", len(b)))
	}
	copy(a[:], b)
	return a, true, nil
}

// recordIssued notes that fps were issued to a, in one transaction; a
// fingerprint already recorded keeps its first issuer.
func (l *ledger) recordIssued(ctx context.Context, fps [][32]byte, a Account) error {
	if len(fps) == 0 {
		return nil
	}
	err := l.write(ctx, `proxy_issued`, l.maxIssued, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO proxy_issued(fingerprint, account) VALUES(?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, fp := range fps {
			if _, err := st.ExecContext(ctx, fp[:], a[:]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return storageErr("recording issued items", err)
	}
	return nil
}

// accounts returns the accounts session was seen with, a among them: it is
// added when the ledger did not have it yet.
func (l *ledger) accounts(ctx context.Context, session string, a Account) ([]Account, error) {
	seen, err := l.sessionAccounts(ctx, session)
	if err != nil {
		return nil, err
	}
	for _, s := range seen {
		if s == a {
			return seen, nil
		}
	}
	err = l.write(ctx, `proxy_session_accounts`, l.maxAccounts, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO proxy_session_accounts(session, account) VALUES(?, ?)`, session, a[:])
		return err
	})
	if err != nil {
		return nil, storageErr("recording a session's account", err)
	}
	// Another proxy may have added one meanwhile: read the set again.
	return l.sessionAccounts(ctx, session)
}

// born returns when session was first seen by any proxy on this data
// directory (ms since the epoch), recording now when none had: the birth
// evidence its creation-time default is resolved with, which a restart
// must not move.
func (l *ledger) born(ctx context.Context, session string, now int64) (int64, error) {
	err := l.write(ctx, `proxy_sessions`, l.maxSessions, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO proxy_sessions(session, first_seen) VALUES(?, ?)`, session, now)
		return err
	})
	if err != nil {
		return 0, storageErr("recording when a session was first seen", err)
	}
	var at int64
	if err := l.db.QueryRowContext(ctx, `SELECT first_seen FROM proxy_sessions WHERE session = ?`, session).Scan(&at); err != nil {
		return 0, storageErr("reading when a session was first seen", err)
	}
	return at, nil
}

// sessionAccounts reads the accounts session was seen with, oldest first.
func (l *ledger) sessionAccounts(ctx context.Context, session string) ([]Account, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT account FROM proxy_session_accounts WHERE session = ? ORDER BY seq`, session)
	if err != nil {
		return nil, storageErr("reading a session's accounts", err)
	}
	defer rows.Close()
	var out []Account
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, storageErr("reading a session's accounts", err)
		}
		var a Account
		if len(b) != len(a) {
			return nil, storageErr("reading a session's accounts", fmt.Errorf("account digest of %d bytes", len(b)))
		}
		copy(a[:], b)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, storageErr("reading a session's accounts", err)
	}
	return out, nil
}

// storageErr names a ledger failure STORAGE_UNAVAILABLE.
func storageErr(what string, err error) error {
	return diag.Wrap(diag.StorageUnavailable, "continuity proxy: "+what+": "+err.Error(), err)
}

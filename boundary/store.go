package boundary

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/sqlstore"
)

// Component is the sqlstore.Migrate component name of this package.
const Component = "boundary"

// migrations create the boundary tables. boundary_sessions names each
// session's current pin, so a deleted pin row is told apart from a pin that
// was never established; pins are kept for history and never updated.
var migrations = []string{
	`CREATE TABLE boundary_sessions (
		session_id TEXT PRIMARY KEY,
		pin_digest TEXT
	);
	CREATE TABLE boundary_pins (
		session_id     TEXT NOT NULL,
		digest         TEXT NOT NULL,
		event_id       INTEGER NOT NULL,
		text           TEXT NOT NULL,
		source         TEXT NOT NULL,
		reason         TEXT NOT NULL,
		origin_session TEXT NOT NULL,
		pinned_at      TEXT NOT NULL,
		PRIMARY KEY (session_id, digest)
	);
	CREATE TABLE boundary_witnesses (
		session_id TEXT NOT NULL,
		seq        INTEGER NOT NULL,
		idx        INTEGER NOT NULL,
		kind       TEXT NOT NULL,
		subject    TEXT NOT NULL,
		passed     INTEGER,
		text       TEXT NOT NULL,
		tokens     INTEGER NOT NULL,
		PRIMARY KEY (session_id, seq, idx)
	);
	CREATE TABLE boundary_decisions (
		id          INTEGER PRIMARY KEY AUTOINCREMENT,
		session_id  TEXT NOT NULL,
		at          TEXT NOT NULL,
		decision    TEXT NOT NULL,
		reason      TEXT NOT NULL,
		pin_digest  TEXT,
		through_seq INTEGER NOT NULL,
		record      TEXT NOT NULL
	);
	CREATE INDEX boundary_decisions_session ON boundary_decisions (session_id, id);`,
}

// store is the SQLite side of the service.
type store struct{ db *sql.DB }

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func openStore(ctx context.Context, db *sql.DB) (*store, error) {
	if err := sqlstore.Migrate(ctx, db, Component, migrations); err != nil {
		return nil, storeErr("migrate", err)
	}
	return &store{db: db}, nil
}

// inTx runs f in one write transaction about sessionID. Its first
// statement writes (the session row), so the transaction takes SQLite's
// write lock at once, waiting out other writers under the busy timeout; a
// transaction that read first and wrote later could fail with SQLITE_BUSY
// when another connection (this package's or another component's) wrote in
// between.
func (s *store) inTx(ctx context.Context, op, sessionID string, f func(q querier) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return storeErr(op, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO boundary_sessions (session_id) VALUES (?) ON CONFLICT DO NOTHING`, sessionID); err != nil {
		return storeErr(op, errors.Join(err, sqlstore.Rollback(tx)))
	}
	if err := f(tx); err != nil {
		return storeErr(op, errors.Join(err, sqlstore.Rollback(tx)))
	}
	return storeErr(op, tx.Commit())
}

// setPin makes p the session's current pin.
func setPin(ctx context.Context, q querier, sessionID string, p Pin) error {
	if _, err := q.ExecContext(ctx, `INSERT INTO boundary_pins
		(session_id, digest, event_id, text, source, reason, origin_session, pinned_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		sessionID, p.Digest, p.EventID, p.Text, string(p.Source), p.Reason, p.OriginSession, p.PinnedAt.Format(time.RFC3339Nano)); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, `INSERT INTO boundary_sessions (session_id, pin_digest) VALUES (?, ?)
		ON CONFLICT (session_id) DO UPDATE SET pin_digest = excluded.pin_digest`, sessionID, p.Digest)
	return err
}

// establishDefault stores the default pin unless the session ever had one:
// a pin that existed and vanished must be reported, not re-derived.
func establishDefault(ctx context.Context, q querier, sessionID string, p Pin) error {
	var digest sql.NullString
	err := q.QueryRowContext(ctx, `SELECT pin_digest FROM boundary_sessions WHERE session_id = ?`, sessionID).Scan(&digest)
	if err == nil && digest.Valid {
		return nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return setPin(ctx, q, sessionID, p)
}

// readPin is step 1's read: the current pin, verified. It returns the pin,
// or nil with the stored claim (when there is one) and the problem.
func readPin(ctx context.Context, q querier, sessionID string) (pin, claimed *Pin, problem string, err error) {
	var digest sql.NullString
	err = q.QueryRowContext(ctx, `SELECT pin_digest FROM boundary_sessions WHERE session_id = ?`, sessionID).Scan(&digest)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !digest.Valid {
		return nil, nil, PinProblemNeverSeen, nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	var p Pin
	var source, at string
	err = q.QueryRowContext(ctx, `SELECT digest, event_id, text, source, reason, origin_session, pinned_at
		FROM boundary_pins WHERE session_id = ? AND digest = ?`, sessionID, digest.String).
		Scan(&p.Digest, &p.EventID, &p.Text, &source, &p.Reason, &p.OriginSession, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, PinProblemDeleted, nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	p.Source = PinSource(source)
	p.PinnedAt, _ = time.Parse(time.RFC3339Nano, at)
	if !p.Verify() {
		return nil, &p, PinProblemDigestMismatch, nil
	}
	return &p, nil, "", nil
}

// saveWitnesses stores durable items; an item already stored is kept as it
// was, so a replayed event cannot rewrite a witness.
func saveWitnesses(ctx context.Context, q querier, sessionID string, items []Item) error {
	for _, it := range items {
		var passed any
		if it.Passed != nil {
			passed = *it.Passed
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO boundary_witnesses
			(session_id, seq, idx, kind, subject, passed, text, tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING`, sessionID, it.Seq, it.Index, string(it.Kind), it.Subject, passed, it.Text, it.Tokens); err != nil {
			return err
		}
	}
	return nil
}

// readWitnesses is step 2: the durable witnesses, independent of any
// transcript, in event order.
func readWitnesses(ctx context.Context, q querier, sessionID string) ([]Item, error) {
	rows, err := q.QueryContext(ctx, `SELECT seq, idx, kind, subject, passed, text, tokens
		FROM boundary_witnesses WHERE session_id = ? ORDER BY seq, idx`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Item
	for rows.Next() {
		var it Item
		var kind string
		var passed sql.NullBool
		if err := rows.Scan(&it.Seq, &it.Index, &kind, &it.Subject, &passed, &it.Text, &it.Tokens); err != nil {
			return nil, err
		}
		it.Kind = Kind(kind)
		if passed.Valid {
			b := passed.Bool
			it.Passed = &b
		}
		it.classify()
		out = append(out, it)
	}
	return out, rows.Err()
}

// saveDecision appends a decision record and returns its id.
func saveDecision(ctx context.Context, q querier, d Decision, throughSeq int64) (int64, error) {
	rec, err := json.Marshal(d)
	if err != nil {
		return 0, err
	}
	var digest any
	if d.Pin.Digest != nil {
		digest = *d.Pin.Digest
	}
	res, err := q.ExecContext(ctx, `INSERT INTO boundary_decisions
		(session_id, at, decision, reason, pin_digest, through_seq, record) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		d.SessionID, d.At.Format(time.RFC3339Nano), string(d.Decision), string(d.Reason), digest, throughSeq, string(rec))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// latestDecision reads the newest decision record of a session.
func latestDecision(ctx context.Context, q querier, sessionID string) (Decision, int64, bool, error) {
	var id, through int64
	var rec string
	err := q.QueryRowContext(ctx, `SELECT id, through_seq, record FROM boundary_decisions
		WHERE session_id = ? ORDER BY id DESC LIMIT 1`, sessionID).Scan(&id, &through, &rec)
	if errors.Is(err, sql.ErrNoRows) {
		return Decision{}, 0, false, nil
	}
	if err != nil {
		return Decision{}, 0, false, err
	}
	var d Decision
	if err := json.Unmarshal([]byte(rec), &d); err != nil {
		return Decision{}, 0, false, diag.Newf(diag.BoundaryRecordInvalid, "decision record %d cannot be read", id).With("id", id)
	}
	d.ID = id
	return d, through, true, nil
}

// Package sqlstore opens continuity's SQLite database in the data directory
// and applies each component's schema migrations.
//
// One database file holds the continuation store, the boundary pins and
// decision records and the account store, each component in its own
// tables and its own transactions: a continuation and the decision that
// led to it are separate commits, linked by ids, never one transaction.
// WAL mode lets readers (Remotes, recall) run beside the writer;
// a busy timeout absorbs short lock waits between processes.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// FileName is the database file inside the data directory.
const FileName = "continuity.db"

// Open opens (creating if needed) the database in dir with WAL, foreign
// keys and a busy timeout. Transactions begin IMMEDIATE, taking the write
// lock up front, so two processes migrating at once wait for each other
// instead of failing on a stale snapshot.
func Open(dir string) (*sql.DB, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sqlstore: data directory: %w", err)
	}
	dsn := "file:" + filepath.Join(dir, FileName) +
		"?_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	connector, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: open: %w", err)
	}
	db := sql.OpenDB(cachingConnector{connector}) // statements are cached per connection (stmtcache.go)
	// Processes starting together on one data directory race to switch
	// the file to WAL and create the migrations table; the busy timeout
	// does not cover every such lock, so opening retries a few times.
	for attempt := 0; ; attempt++ {
		err = db.Ping()
		if err == nil {
			_, err = db.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
				component TEXT PRIMARY KEY,
				version   INTEGER NOT NULL)`)
		}
		if err == nil || attempt == 20 || !busy(err) {
			break
		}
		time.Sleep(time.Duration(10+attempt*10) * time.Millisecond)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("sqlstore: open: %w", err), db.Close())
	}
	return db, nil
}

// busy reports a SQLite lock error worth retrying.
func busy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY")
}

// Migrate brings component's schema up to len(steps). Step i (0-based) runs
// once, in its own transaction together with the version bump, so a crash
// mid-migration leaves the previous version intact.
func Migrate(ctx context.Context, db *sql.DB, component string, steps []string) error {
	for {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("sqlstore: migrate %s: %w", component, err)
		}
		var v int
		err = tx.QueryRowContext(ctx, `SELECT version FROM schema_migrations WHERE component = ?`, component).Scan(&v)
		if err == sql.ErrNoRows {
			v, err = 0, nil
		}
		if err != nil {
			return errors.Join(fmt.Errorf("sqlstore: migrate %s: %w", component, err), Rollback(tx))
		}
		if v > len(steps) {
			return errors.Join(fmt.Errorf("sqlstore: %s schema version %d is newer than this binary (%d)", component, v, len(steps)), Rollback(tx))
		}
		if v == len(steps) {
			return tx.Rollback()
		}
		if _, err := tx.ExecContext(ctx, steps[v]); err != nil {
			return errors.Join(fmt.Errorf("sqlstore: migrate %s to %d: %w", component, v+1, err), Rollback(tx))
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(component, version) VALUES(?, ?)
			ON CONFLICT(component) DO UPDATE SET version = excluded.version`, component, v+1); err != nil {
			return errors.Join(fmt.Errorf("sqlstore: migrate %s: %w", component, err), Rollback(tx))
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("sqlstore: migrate %s: %w", component, err)
		}
	}
}

// Rollback undoes tx after a failure and returns the rollback's own error
// for the caller to join to the failure. A transaction the driver already
// ended (its context was cancelled) has nothing left to undo, so that case
// is not an error.
func Rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

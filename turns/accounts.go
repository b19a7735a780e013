package turns

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"

	"github.com/continuity-dev/continuity/sqlstore"
)

// AccountDigest is the opaque form in which an account is kept: DSH has no
// account event, only agent/request.accountId, and the raw id never reaches
// memory that outlives the request, the database or the log. Digests of the
// same id are equal, so an account switch is still recognised.
func AccountDigest(accountID string) string {
	if accountID == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("continuity.account\x00" + accountID))
	return hex.EncodeToString(sum[:16])
}

// Accounts keeps the digest of each session's latest account across
// restarts, so an account switch after a restart still pauses while the
// policy is off.
type Accounts interface {
	// Load returns the session's kept digest, "" when none.
	Load(ctx context.Context, sessionID string) (string, error)
	// Save keeps digest as the session's latest account.
	Save(ctx context.Context, sessionID, digest string) error
}

// accountsComponent is the sqlstore.Migrate component of AccountStore.
const accountsComponent = "turns.accounts"

var accountMigrations = []string{`CREATE TABLE turn_accounts (
	session_id TEXT PRIMARY KEY,
	digest     TEXT NOT NULL)`}

// AccountStore is Accounts in continuity's SQLite database.
type AccountStore struct{ db *sql.DB }

// OpenAccountStore migrates the account table in db (from sqlstore.Open).
func OpenAccountStore(ctx context.Context, db *sql.DB) (*AccountStore, error) {
	if err := sqlstore.Migrate(ctx, db, accountsComponent, accountMigrations); err != nil {
		return nil, err
	}
	return &AccountStore{db: db}, nil
}

// Load implements Accounts.
func (s *AccountStore) Load(ctx context.Context, sessionID string) (string, error) {
	var d string
	err := s.db.QueryRowContext(ctx, `SELECT digest FROM turn_accounts WHERE session_id = ?`, sessionID).Scan(&d)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return d, err
}

// Save implements Accounts.
func (s *AccountStore) Save(ctx context.Context, sessionID, digest string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO turn_accounts(session_id, digest) VALUES(?, ?)
		ON CONFLICT(session_id) DO UPDATE SET digest = excluded.digest`, sessionID, digest)
	return err
}

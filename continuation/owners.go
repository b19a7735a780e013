package continuation

import (
	"context"
	"database/sql"

	"github.com/continuity-dev/continuity/diag"
)

// A continuation ends the turn that made it (docs/protocol.md §12.1), so
// one turn makes at most one continuation, and a pending run it carries
// changes owner once. Both are claimed inside insertIntent's transaction,
// holding the write lock, so two concurrent calls cannot both win. An edge
// counts while it is committed or still under way (pending within
// pendingLease, its host create not failed); an edge whose host create
// failed gives its claims up, because its call returned an error and
// nothing was continued.

// claimTurn refuses a second continuation from the same session and turn
// under another call id (a replay of the same call never gets here).
func claimTurn(ctx context.Context, tx *sql.Tx, e Edge, pendingSince int64) error {
	var other string
	err := tx.QueryRowContext(ctx, `SELECT id FROM continuation_edges
		WHERE actor_session = ? AND actor_turn = ? AND id != ?
		AND (state = 'committed' OR created_at >= ? AND create_failed_at IS NULL) LIMIT 1`,
		e.Actor.SessionID, e.Actor.Turn, e.ID, pendingSince).Scan(&other)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return storeErr("read turn", err)
	}
	return turnEnded(e.Actor.SessionID, e.Actor.Turn, other)
}

func turnEnded(sessionID string, turn int64, edgeID string) error {
	return diag.Newf(diag.TurnEnded, "turn %d of session %s already continued (edge %s); the successor answers", turn, sessionID, edgeID).
		With("sessionId", sessionID).With("turn", turn).With("edgeId", edgeID)
}

// claimRuns makes e the owner of every pending run it carries. A run that
// another live edge already carried is refused — unless e corrects that
// edge, which hands the same runs to the corrected successor.
func claimRuns(ctx context.Context, tx *sql.Tx, e Edge, state []StateItem, pendingSince int64) error {
	for _, it := range state {
		if it.Kind != StatePendingRun {
			continue
		}
		var owner, ownerState string
		var created int64
		var failed bool
		err := tx.QueryRowContext(ctx, `SELECT o.edge_id, e.state, e.created_at, e.create_failed_at IS NOT NULL FROM continuation_run_owners o
			JOIN continuation_edges e ON e.id = o.edge_id WHERE o.session_id = ? AND o.run_id = ?`,
			e.PredecessorID, it.Key).Scan(&owner, &ownerState, &created, &failed)
		switch {
		case err == sql.ErrNoRows:
		case err != nil:
			return storeErr("read run owner", err)
		case owner != e.Corrects && (ownerState == "committed" || created >= pendingSince && !failed):
			return diag.Newf(diag.TransferInvalid, "run %s of session %s was already carried by edge %s", it.Key, e.PredecessorID, owner).
				With("runId", it.Key).With("edgeId", owner)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO continuation_run_owners(session_id, run_id, edge_id) VALUES(?,?,?)
			ON CONFLICT(session_id, run_id) DO UPDATE SET edge_id = excluded.edge_id`, e.PredecessorID, it.Key, e.ID); err != nil {
			return storeErr("write run owner", err)
		}
	}
	return nil
}

// transferredRuns lists the runs of sessionID that a committed edge
// carried away: the predecessor no longer owns them, so they are neither
// pending there nor carried a second time.
func transferredRuns(ctx context.Context, db *sql.DB, sessionID string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT o.run_id FROM continuation_run_owners o
		JOIN continuation_edges e ON e.id = o.edge_id WHERE o.session_id = ? AND e.state = 'committed'`, sessionID)
	if err != nil {
		return nil, storeErr("read run owners", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, storeErr("read run owners", err)
		}
		out[id] = true
	}
	return out, storeErr("read run owners", rows.Err())
}

// TurnEnded reports whether a committed continuation ended the given turn
// of sessionID: later steps and tools of that turn are refused with
// CONTINUITY_TURN_ENDED (the error it returns then), and a replay of the
// continue_session call that ended it is answered from the store.
func (s *Service) TurnEnded(ctx context.Context, sessionID string, turn int64) error {
	var id string
	err := s.db.QueryRowContext(ctx, `SELECT id FROM continuation_edges
		WHERE actor_session = ? AND actor_turn = ? AND state = 'committed' LIMIT 1`, sessionID, turn).Scan(&id)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return storeErr("read turn", err)
	}
	return turnEnded(sessionID, turn, id)
}

package continuation

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// rateLimit is what insertIntent checks: at most max edges of one
// predecessor created since since, counting pending edges only from
// pendingSince on.
type rateLimit struct {
	max                 int
	since, pendingSince int64
}

// markCreateFailed records that the host did not create e's successor:
// the edge stays pending so that a replay finishes it, but it no longer
// counts as under way for the rate limit or the turn it was made in.
func markCreateFailed(ctx context.Context, db *sql.DB, edgeID string, now int64) error {
	_, err := db.ExecContext(ctx, `UPDATE continuation_edges SET create_failed_at = ? WHERE id = ? AND state = 'pending'`, now, edgeID)
	return storeErr("mark create failed", err)
}

// pendingLease is how long a pending edge counts against the rate limit:
// long enough to cover a continuation whose host create is still running
// (the host call's deadline is 10 s), short enough that creates that
// failed — their edges stay pending so that a replay can finish them — do
// not lock a session out of continuing for the rest of the window.
const pendingLease = 30 * time.Second

// intent is everything a continuation writes before asking the host.
type intent struct {
	edge     Edge
	manifest Manifest // SuccessorID and Digests.Manifest empty
	handoff  Handoff
	state    []StateItem
	events   map[string][]hostapi.Event // by session: every event the manifest selected
}

// insertIntent writes a pending continuation in one transaction. If the
// key is already there (a concurrent replay won), it returns that edge.
// The edge insert comes first so the transaction holds SQLite's write lock
// from its first statement: a read-then-write transaction would fail with
// a busy snapshot under a concurrent writer instead of waiting. Holding
// that lock, it counts the predecessor's other edges in the rate window —
// committed ones, and pending ones young enough to be under way (see
// pendingLease) — so a continuation that checkRate let through while
// another was still running is refused here when together they pass the
// limit.
func insertIntent(ctx context.Context, db *sql.DB, in intent, limit rateLimit) (*Edge, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, storeErr("begin", err)
	}
	defer tx.Rollback()
	e := in.edge
	var corrects any
	if e.Corrects != "" {
		corrects = e.Corrects
	}
	seq, _ := parseEventID(e.InitiatingEventID)
	res, err := tx.ExecContext(ctx, `INSERT INTO continuation_edges(id, idempotency_key, args_digest, predecessor_id, origin_id,
		reason, title, actor_session, actor_call, actor_turn, corrects, initiating_seq, created_at, state, context)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,'pending',?) ON CONFLICT DO NOTHING`,
		e.ID, e.IdempotencyKey, e.argsDigest, e.PredecessorID, e.OriginID, e.Reason, e.Title,
		e.Actor.SessionID, e.Actor.CallID, e.Actor.Turn, corrects, seq, e.CreatedAt, e.context)
	if err != nil {
		return nil, storeErr("write intent", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err != nil {
			return nil, storeErr("write intent", err)
		}
		prev, err := edgeByKey(ctx, tx, e.IdempotencyKey)
		if err == nil && prev == nil {
			err = errors.New("edge id taken by another key")
		}
		return prev, storeErr("read edge", err)
	}
	var others int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM continuation_edges
		WHERE predecessor_id = ? AND id != ? AND created_at >= ?
		AND (state = 'committed' OR state = 'pending' AND created_at >= ? AND create_failed_at IS NULL)`,
		e.PredecessorID, e.ID, limit.since, limit.pendingSince).Scan(&others); err != nil {
		return nil, storeErr("count edges", err)
	}
	if others+1 > limit.max {
		return nil, diag.Newf(diag.RateLimited, "session %s has %d continuations made or under way in the rate window", e.PredecessorID, others).
			With("sessionId", e.PredecessorID).With("count", others)
	}
	if err := claimTurn(ctx, tx, e, limit.pendingSince); err != nil {
		return nil, err
	}
	if err := claimRuns(ctx, tx, e, in.state, limit.pendingSince); err != nil {
		return nil, err
	}
	body, hbody := marshal(in.manifest), marshal(in.handoff)
	if _, err := tx.ExecContext(ctx, `INSERT INTO continuation_manifests(id, edge_id, body, digest) VALUES(?,?,?,?)`,
		e.ManifestID, e.ID, body, digestOf(body)); err != nil {
		return nil, storeErr("write manifest", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO continuation_handoffs(edge_id, body, digest) VALUES(?,?,?)`,
		e.ID, hbody, digestOf(hbody)); err != nil {
		return nil, storeErr("write handoff", err)
	}
	for i, it := range in.state {
		if _, err := tx.ExecContext(ctx, `INSERT INTO continuation_state(edge_id, ord, kind, key, body) VALUES(?,?,?,?,?)`,
			e.ID, i, it.Kind, it.Key, marshal(it)); err != nil {
			return nil, storeErr("write state", err)
		}
	}
	for sid, evs := range in.events {
		for _, ev := range evs {
			d := eventDigest(ev)
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO continuation_events(session_id, seq, digest, type, time, data)
				VALUES(?,?,?,?,?,?)`, sid, ev.Seq, d, ev.Type, []byte(ev.Time), []byte(ev.Data)); err != nil {
				return nil, storeErr("write events", err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO continuation_selected(manifest_id, session_id, seq, digest)
				VALUES(?,?,?,?)`, e.ManifestID, sid, ev.Seq, d); err != nil {
				return nil, storeErr("write selection", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, storeErr("commit intent", err)
	}
	return nil, nil
}

// commitEdge binds a pending edge to the successor the host created. It
// reports false when the edge was already committed (a replay). A successor
// that is the predecessor or one of its ancestors would close a cycle; one
// that already has a predecessor would get a second one: both are refused
// and the edge stays pending, so nothing half-written becomes visible.
func commitEdge(ctx context.Context, db *sql.DB, edgeID, successorID string, now int64) (*Edge, bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, storeErr("begin", err)
	}
	defer tx.Rollback()
	// Take the write lock first (see insertIntent); this changes nothing.
	if _, err := tx.ExecContext(ctx, `UPDATE continuation_edges SET committed_at = committed_at WHERE id = ?`, edgeID); err != nil {
		return nil, false, storeErr("lock edge", err)
	}
	e, err := oneEdge(ctx, tx, `WHERE e.id = ?`, edgeID)
	if err != nil {
		return nil, false, storeErr("read edge", err)
	}
	if e == nil {
		return nil, false, storeErr("read edge", errors.New("pending edge missing"))
	}
	if e.committed {
		if e.SuccessorID != successorID {
			return nil, false, diag.Newf(diag.PredecessorConflict, "edge %s already names another successor", edgeID).With("edgeId", edgeID)
		}
		return e, false, nil
	}
	if err := checkAcyclic(ctx, tx, e.PredecessorID, successorID); err != nil {
		return nil, false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE continuation_edges SET successor_id = ?, state = 'committed', committed_at = ?
		WHERE id = ? AND state = 'pending'`, successorID, now, edgeID); err != nil {
		return nil, false, storeErr("commit edge", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, false, storeErr("commit edge", err)
	}
	e.SuccessorID, e.committed = successorID, true
	return e, true, nil
}

// checkAcyclic refuses predecessor → successor when it would close a cycle
// or give successor a second predecessor.
func checkAcyclic(ctx context.Context, q querier, predecessorID, successorID string) error {
	if successorID == predecessorID {
		return diag.Newf(diag.Cycle, "session %s cannot continue into itself", predecessorID).With("sessionId", predecessorID)
	}
	path, err := ancestry(ctx, q, predecessorID)
	if err != nil {
		return storeErr("read lineage", err)
	}
	for _, a := range path {
		if a.PredecessorID == successorID {
			return diag.Newf(diag.Cycle, "session %s is an ancestor of %s", successorID, predecessorID).
				With("sessionId", successorID).With("predecessorId", predecessorID)
		}
	}
	prev, err := incoming(ctx, q, successorID)
	if err != nil {
		return storeErr("read lineage", err)
	}
	if prev != nil {
		return diag.Newf(diag.PredecessorConflict, "session %s already continues edge %s", successorID, prev.ID).
			With("sessionId", successorID).With("edgeId", prev.ID)
	}
	return nil
}

package continuation

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/continuity-dev/continuity/diag"
)

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

// Edge is one continuation edge: why, when and by whom a predecessor was
// continued in a successor. SuccessorID is empty only while pending.
type Edge struct {
	ID                string `json:"edgeId"`
	PredecessorID     string `json:"predecessorId"`
	SuccessorID       string `json:"successorId,omitempty"`
	OriginID          string `json:"originId"`
	Reason            string `json:"reason"`
	Title             string `json:"title"`
	Actor             Actor  `json:"actor"`
	Corrects          string `json:"corrects,omitempty"`
	InitiatingEventID string `json:"initiatingEventId"`
	CreatedAt         int64  `json:"createdAt"`
	ManifestID        string `json:"manifestId"`
	IdempotencyKey    string `json:"-"`
	argsDigest        string
	committed         bool
	context           []byte
}

// maxWalk bounds lineage walks so a damaged store cannot loop forever.
const maxWalk = 100000

const edgeCols = `e.id, e.idempotency_key, e.args_digest, e.predecessor_id, COALESCE(e.successor_id, ''), e.origin_id,
	e.reason, e.title, e.actor_session, e.actor_call, e.actor_turn, COALESCE(e.corrects, ''), e.initiating_seq,
	e.created_at, e.state, e.context, m.id`

const edgeFrom = ` FROM continuation_edges e JOIN continuation_manifests m ON m.edge_id = e.id `

func scanEdges(rows *sql.Rows, err error) ([]Edge, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Edge
	for rows.Next() {
		var e Edge
		var seq int64
		var state string
		if err := rows.Scan(&e.ID, &e.IdempotencyKey, &e.argsDigest, &e.PredecessorID, &e.SuccessorID, &e.OriginID,
			&e.Reason, &e.Title, &e.Actor.SessionID, &e.Actor.CallID, &e.Actor.Turn, &e.Corrects, &seq,
			&e.CreatedAt, &state, &e.context, &e.ManifestID); err != nil {
			return nil, err
		}
		e.Actor.Kind, e.InitiatingEventID, e.committed = "agent", eventID(seq), state == "committed"
		out = append(out, e)
	}
	return out, rows.Err()
}

// oneEdge returns the single edge a query selects, or nil.
func oneEdge(ctx context.Context, q querier, where string, args ...any) (*Edge, error) {
	es, err := scanEdges(q.QueryContext(ctx, `SELECT `+edgeCols+edgeFrom+where, args...))
	if err != nil || len(es) == 0 {
		return nil, err
	}
	return &es[0], nil
}

func edgeByKey(ctx context.Context, q querier, key string) (*Edge, error) {
	return oneEdge(ctx, q, `WHERE e.idempotency_key = ?`, key)
}

func edgeByID(ctx context.Context, q querier, id string) (*Edge, error) {
	return oneEdge(ctx, q, `WHERE e.id = ? AND e.state = 'committed'`, id)
}

// incoming returns the committed edge whose successor is sessionID, or nil.
func incoming(ctx context.Context, q querier, sessionID string) (*Edge, error) {
	return oneEdge(ctx, q, `WHERE e.successor_id = ? AND e.state = 'committed'`, sessionID)
}

// successors lists sessionID's committed outgoing edges, oldest first;
// edges made within one clock tick keep the order their intents were
// written in (rowid), not the order of their hash-derived ids.
func successors(ctx context.Context, q querier, sessionID string) ([]Edge, error) {
	return scanEdges(q.QueryContext(ctx, `SELECT `+edgeCols+edgeFrom+
		`WHERE e.predecessor_id = ? AND e.state = 'committed' ORDER BY e.created_at, e.rowid`, sessionID))
}

// ancestry returns the committed edges from the origin down to sessionID
// (empty for a session that was never continued into).
func ancestry(ctx context.Context, q querier, sessionID string) ([]Edge, error) {
	var rev []Edge
	seen := map[string]bool{sessionID: true}
	for cur := sessionID; len(rev) < maxWalk; {
		e, err := incoming(ctx, q, cur)
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		if seen[e.PredecessorID] {
			return nil, diag.Newf(diag.Cycle, "the stored lineage of session %s loops", sessionID).With("sessionId", sessionID)
		}
		seen[e.PredecessorID] = true
		rev = append(rev, *e)
		cur = e.PredecessorID
	}
	out := make([]Edge, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out, nil
}

// originOf is the first session of sessionID's lineage.
func originOf(path []Edge, sessionID string) string {
	if len(path) == 0 {
		return sessionID
	}
	return path[0].PredecessorID
}

// loadManifest returns a manifest with its successor and digest filled in.
func loadManifest(ctx context.Context, q querier, manifestID string) (*Manifest, *Edge, error) {
	e, err := oneEdge(ctx, q, `WHERE m.id = ? AND e.state = 'committed'`, manifestID)
	if err != nil || e == nil {
		return nil, nil, storeErr("read manifest", err)
	}
	var body []byte
	var digest string
	if err := q.QueryRowContext(ctx, `SELECT body, digest FROM continuation_manifests WHERE id = ?`, manifestID).Scan(&body, &digest); err != nil {
		return nil, nil, storeErr("read manifest", err)
	}
	var m Manifest
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, nil, storeErr("decode manifest", err)
	}
	m.SuccessorID, m.Digests.Manifest = e.SuccessorID, digest
	return &m, e, nil
}

// loadHandoff returns an edge's handoff.
func loadHandoff(ctx context.Context, q querier, edgeID string) (*Handoff, error) {
	var body []byte
	err := q.QueryRowContext(ctx, `SELECT body FROM continuation_handoffs WHERE edge_id = ?`, edgeID).Scan(&body)
	if err != nil {
		return nil, storeErr("read handoff", err)
	}
	var h Handoff
	if err := json.Unmarshal(body, &h); err != nil {
		return nil, storeErr("decode handoff", err)
	}
	return &h, nil
}

// loadState returns an edge's transferred state items in order.
func loadState(ctx context.Context, q querier, edgeID string) ([]StateItem, error) {
	rows, err := q.QueryContext(ctx, `SELECT body FROM continuation_state WHERE edge_id = ? ORDER BY ord`, edgeID)
	if err != nil {
		return nil, storeErr("read state", err)
	}
	defer rows.Close()
	var out []StateItem
	for rows.Next() {
		var body []byte
		var it StateItem
		if err := rows.Scan(&body); err != nil {
			return nil, storeErr("read state", err)
		}
		if err := json.Unmarshal(body, &it); err != nil {
			return nil, storeErr("decode state", err)
		}
		out = append(out, it)
	}
	return out, storeErr("read state", rows.Err())
}

// countSince counts committed edges from predecessorID created at or after since.
func countSince(ctx context.Context, q querier, predecessorID string, since int64) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM continuation_edges
		WHERE predecessor_id = ? AND state = 'committed' AND created_at >= ?`, predecessorID, since).Scan(&n)
	return n, storeErr("count edges", err)
}

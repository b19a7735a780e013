package continuation

import (
	"context"
	"strconv"
)

// When a person comes back to a predecessor and writes there, answering in
// place would silently fork the conversation (docs/protocol.md §12.6). The
// plugin offers instead to open the current continuation or to branch into
// another one, as a composer notice.

// EventNotice is the remote event composer notices travel on.
const EventNotice = "continuity.notice"

// Return offer choices, in the order a client shows them.
const (
	ReturnOpen   = "open"   // open the current continuation
	ReturnBranch = "branch" // continue_session again from this predecessor
)

// ReturnNotice is the ComposerNotice of kind continuationReturn: ids only,
// like every notice (the successor's title comes from the lineage Remote).
type ReturnNotice struct {
	ID           string       `json:"id"`
	AgentID      string       `json:"agentId"`
	Turn         *int64       `json:"turn"`
	Kind         string       `json:"kind"`
	TextKey      string       `json:"textKey"`
	At           int64        `json:"at"`
	Continuation ReturnChoice `json:"continuation"`
}

// ReturnChoice names the current continuation and what the person may do.
type ReturnChoice struct {
	SuccessorID string   `json:"successorId"`
	EdgeID      string   `json:"edgeId"`
	Choices     []string `json:"choices"`
}

// OfferReturn makes the return offer when sessionID was continued in an
// earlier turn than turn, naming its latest successor: it emits the notice
// (when the host forwards remote events) and returns it, so that the
// notices Remote lists it too; nil when there is nothing to offer. A lost
// notification loses nothing: the lineage Remote still shows the
// transition card.
func (s *Service) OfferReturn(ctx context.Context, sessionID string, turn int64) (*ReturnNotice, error) {
	e, err := oneEdge(ctx, s.db, `WHERE e.predecessor_id = ? AND e.actor_session = ? AND e.state = 'committed' AND e.actor_turn < ?
		ORDER BY e.committed_at DESC, e.id LIMIT 1`, sessionID, sessionID, turn)
	if err != nil {
		return nil, storeErr("read edges", err)
	}
	if e == nil {
		return nil, nil
	}
	t := turn
	n := ReturnNotice{ID: "continuation-return:" + sessionID + ":" + strconv.FormatInt(turn, 10), AgentID: sessionID, Turn: &t,
		Kind: "continuationReturn", TextKey: "continuation.return.body", At: s.opts.Now().UnixMilli(),
		Continuation: ReturnChoice{SuccessorID: e.SuccessorID, EdgeID: e.ID, Choices: []string{ReturnOpen, ReturnBranch}}}
	if s.emit == nil {
		return &n, nil
	}
	return &n, s.emit.Emit(ctx, EventNotice, n)
}

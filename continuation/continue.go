package continuation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// ContinueResult is continue_session's structured result.
type ContinueResult struct {
	SuccessorID string `json:"successorId"`
	EdgeID      string `json:"edgeId"`
	ManifestID  string `json:"manifestId"`
	Created     bool   `json:"created"`
}

// ContinuedEvent is the single argument of the session.continued remote event.
type ContinuedEvent struct {
	PredecessorID string `json:"predecessorId"`
	SuccessorID   string `json:"successorId"`
	EdgeID        string `json:"edgeId"`
	ManifestID    string `json:"manifestId"`
	Reason        string `json:"reason"`
	// Turn is the predecessor's turn that the continuation ended: a client
	// redirects only while it is following that turn.
	Turn int64 `json:"turn"`
}

// EventContinued is the remote event name clients navigate on.
const EventContinued = "session.continued"

// continueSession runs continue_session. The idempotency key is derived
// from (calling session, turn, call id): a committed key answers with its
// successor and created=false; a pending key (the host may or may not have
// created the successor before a crash) is finished with the context it
// stored, so the host's idempotent create yields the one successor it
// already made; a new key is validated, compiled, written as a pending
// intent, created on the host and committed. created is true exactly for
// the answer that committed the edge, and only that answer emits
// session.continued.
func (s *Service) continueSession(ctx context.Context, call ToolCall) (ToolResult, error) {
	if call.SessionID == "" || call.CallID == "" {
		return ToolResult{}, diag.New(diag.ContinuityArgumentsInvalid, "continue_session needs the calling session and call id")
	}
	e, key, err := s.edgeOfCall(ctx, call.SessionID, call.Turn, call.CallID)
	if err != nil {
		return ToolResult{}, err
	}
	var args ContinueArgs
	var argsDigest string
	if call.Sent != nil {
		// The caller expanded the arguments (projection "reseed"): a replay
		// is recognised by what the model sent, whatever the expansion
		// would give now.
		argsDigest = digestOf(compactJSON(call.Sent))
	}
	if e == nil || call.Sent == nil {
		if args, err = parseContinueArgs(call.Arguments); err != nil {
			return ToolResult{}, err
		}
		if argsDigest == "" {
			argsDigest = digestOf(marshal(args))
		}
	}
	if args.DryRun {
		return s.dryRun(ctx, call, args, key, argsDigest)
	}
	if e == nil {
		if err := s.TurnEnded(ctx, call.SessionID, call.Turn); err != nil {
			// A concurrent replay of this very call may have just
			// committed it: then this is a replay, not a second call.
			prev, _, rerr := s.edgeOfCall(ctx, call.SessionID, call.Turn, call.CallID)
			if rerr == nil && prev != nil && prev.committed && prev.argsDigest == argsDigest {
				return continuedResult(prev, false), nil
			}
			return ToolResult{}, err
		}
	}
	if e == nil {
		in, err := s.prepare(ctx, call, args, key, argsDigest)
		if err != nil {
			return ToolResult{}, err
		}
		now := s.opts.Now()
		limit := rateLimit{max: s.opts.MaxPerSession, since: now.Add(-s.opts.RateWindow).UnixMilli(),
			pendingSince: now.Add(-pendingLease).UnixMilli()}
		if e, err = insertIntent(ctx, s.db, in, limit); err != nil {
			return ToolResult{}, err
		}
		if e == nil {
			e = &in.edge
		}
	}
	if e.argsDigest != argsDigest {
		return ToolResult{}, diag.Newf(diag.ReplayMismatch, "call %s was already made with other arguments", call.CallID).With("callId", call.CallID)
	}
	if e.committed {
		return continuedResult(e, false), nil
	}
	return s.finish(ctx, e)
}

// finish asks the host for the successor and commits the edge.
func (s *Service) finish(ctx context.Context, e *Edge) (ToolResult, error) {
	created, err := s.sessions.Create(ctx, hostapi.CreateSession{
		IdempotencyKey: e.IdempotencyKey, PredecessorID: e.PredecessorID, Title: e.Title,
		Header: &hostapi.SessionHeader{IsSeeded: true, Origin: e.OriginID}, Context: e.context,
	})
	if err == nil && created.SessionID == "" {
		err = fmt.Errorf("empty session id")
	}
	if err != nil {
		d := diag.Newf(diag.HostCreateFailed, "the host did not create the successor of %s; replaying this call retries", e.PredecessorID).With("edgeId", e.ID)
		if c := diag.CodeOf(err); c != "" {
			d = d.With("hostCode", c)
		}
		if merr := markCreateFailed(ctx, s.db, e.ID, s.opts.Now().UnixMilli()); merr != nil {
			return ToolResult{}, merr
		}
		return ToolResult{}, d
	}
	ce, fresh, err := commitEdge(ctx, s.db, e.ID, created.SessionID, s.opts.Now().UnixMilli())
	if err != nil {
		// A refused commit (a cycle, a successor with another predecessor)
		// continued nothing either: the edge stays pending, not under way.
		if merr := markCreateFailed(ctx, s.db, e.ID, s.opts.Now().UnixMilli()); merr != nil {
			return ToolResult{}, merr
		}
		return ToolResult{}, err
	}
	if s.opts.Inherit != nil {
		s.opts.Inherit(ctx, ce.PredecessorID, ce.SuccessorID)
	}
	if fresh {
		// The successor's run starts once, when it is made; a failed
		// start is on the card with retry (continuity/startRun).
		if _, err := s.startRun(ctx, ce); err != nil {
			return ToolResult{}, err
		}
	}
	if fresh && s.emit != nil {
		// A lost notification is not a lost continuation: the transition
		// card and the lineage Remote still lead to the successor. The
		// host client logs the failure.
		_ = s.emit.Emit(ctx, EventContinued, ContinuedEvent{
			PredecessorID: ce.PredecessorID, SuccessorID: ce.SuccessorID, EdgeID: ce.ID, ManifestID: ce.ManifestID, Reason: ce.Reason, Turn: ce.Actor.Turn})
	}
	return continuedResult(ce, fresh), nil
}

func continuedResult(e *Edge, created bool) ToolResult {
	r := textResult(fmt.Sprintf("Continued in session %s (edge %s, manifest %s). This turn ends; the successor answers there.",
		e.SuccessorID, e.ID, e.ManifestID),
		ContinueResult{SuccessorID: e.SuccessorID, EdgeID: e.ID, ManifestID: e.ManifestID, Created: created})
	r.EndsTurn = true
	return r
}

// Known reports whether the call (sessionID, turn, callID) already has a
// continuation edge, pending or committed: a replay that must be answered
// from the store.
func (s *Service) Known(ctx context.Context, sessionID string, turn int64, callID string) (bool, error) {
	e, _, err := s.edgeOfCall(ctx, sessionID, turn, callID)
	return e != nil, err
}

// edgeOfCall returns the edge a call already has (nil when none) and the
// idempotency key a new edge for it gets. An edge written before the turn
// was part of the key answers only a call of its own turn.
func (s *Service) edgeOfCall(ctx context.Context, sessionID string, turn int64, callID string) (*Edge, string, error) {
	key := idempotencyKey(sessionID, turn, callID)
	e, err := edgeByKey(ctx, s.db, key)
	if err == nil && e == nil {
		if e, err = edgeByKey(ctx, s.db, legacyKey(sessionID, callID)); e != nil && e.Actor.Turn != turn {
			e = nil
		}
	}
	if err != nil {
		return nil, "", storeErr("read edge", err)
	}
	return e, key, nil
}

// compactJSON removes insignificant whitespace, so a replay that re-encodes
// the same arguments differently still matches.
func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

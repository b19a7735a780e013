package continuation

import (
	"context"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// prepare validates a new continuation and builds its pending intent:
// the correction target (if any), the rate limit, the predecessor's
// initiating message and unsettled effects, the state transfer, every
// cited source, and then the compiled projection and its manifest.
func (s *Service) prepare(ctx context.Context, call ToolCall, args ContinueArgs, key, argsDigest string) (intent, error) {
	var in intent
	pred, fixedSeq := call.SessionID, int64(-1) // -1: no correction fixes the initiating event
	var orig *Edge
	if args.Corrects != "" {
		var err error
		if orig, err = edgeByID(ctx, s.db, args.Corrects); err != nil {
			return in, storeErr("read edge", err)
		}
		if orig == nil {
			return in, diag.Newf(diag.NotFound, "edge %s does not exist", args.Corrects).With("edgeId", args.Corrects)
		}
		if orig.SuccessorID != call.SessionID {
			return in, diag.Newf(diag.LineageForbidden, "only the successor of edge %s may correct it", orig.ID).With("edgeId", orig.ID)
		}
		pred = orig.PredecessorID
		if n, ok := parseEventID(orig.InitiatingEventID); ok {
			fixedSeq = n
		}
	}
	path, err := ancestry(ctx, s.db, pred)
	if err != nil {
		return in, storeErr("read lineage", err)
	}
	now := s.opts.Now().UnixMilli()
	if err := s.checkRate(ctx, pred, path, now); err != nil {
		return in, err
	}
	h, err := scanHistory(ctx, s.sessions, pred, fixedSeq, s.opts.RecentEvents+s.opts.ExcerptEvents)
	if err != nil {
		return in, err
	}
	if h.initiating == nil {
		return in, diag.Newf(diag.InitiatingEventUnavailable, "session %s has no user message to carry", pred).With("sessionId", pred)
	}
	pending, plan := h.pendingList(), hostPlan(h)
	moved, err := transferredRuns(ctx, s.db, pred)
	if err != nil {
		return in, err
	}
	pending = withoutRuns(pending, moved)
	if orig != nil {
		if pending, plan, err = s.carriedByEdge(ctx, orig.ID); err != nil {
			return in, err
		}
	}
	state, err := buildTransfer(args.Transfer, pending, plan)
	if err != nil {
		return in, err
	}
	in.events = map[string][]hostapi.Event{pred: {*h.initiating}}
	srcEvents := make([][]hostapi.Event, len(args.Sources))
	for i, src := range args.Sources {
		if !src.isSession() {
			continue
		}
		// A handoff may cite only what its caller could recall: its own
		// lineage and the ranges that lineage's manifests cite. Otherwise
		// a citation would copy another session into the successor.
		from, to := src.span()
		if _, err := s.authorizeRecall(ctx, call.SessionID, src.SessionID, from, to); err != nil {
			if d, ok := err.(*diag.Error); ok {
				return in, d.With("index", i)
			}
			return in, err
		}
		evs, err := readSource(ctx, s.sessions, src, s.opts.MaxSourceEvents)
		if err != nil {
			if d, ok := err.(*diag.Error); ok {
				return in, d.With("index", i)
			}
			return in, err
		}
		srcEvents[i] = evs
		in.events[src.SessionID] = append(in.events[src.SessionID], evs...)
	}
	recent, excerpts := splitWindow(h.before, s.opts.RecentEvents)
	in.events[pred] = append(in.events[pred], h.before...)

	edgeID, manifestID := edgeIDFor(key), manifestIDFor(key)
	origin := originOf(path, pred)
	c := compile(compileInput{
		manifestID: manifestID, edgeID: edgeID, predecessorID: pred, originID: origin,
		initiating: *h.initiating, initiatingTurn: h.initiatingTurn, handoff: args.Handoff, query: call.Query, state: state,
		sources: args.Sources, sourceEvents: srcEvents, recent: recent, excerpts: excerpts, historySeqs: h.seqs,
		budget: s.opts.TokenBudget,
	})
	model := h.model
	if model == nil {
		model = call.Model
	}
	actor := Actor{Kind: "agent", SessionID: call.SessionID, CallID: call.CallID, Turn: call.Turn}
	in.edge = Edge{ID: edgeID, PredecessorID: pred, OriginID: origin, Reason: args.Reason, Title: args.Title, Actor: actor,
		Corrects: args.Corrects, InitiatingEventID: eventID(h.initiating.Seq), CreatedAt: now, ManifestID: manifestID,
		IdempotencyKey: key, argsDigest: argsDigest, context: c.context}
	in.handoff, in.state = args.Handoff, state
	in.manifest = Manifest{
		ManifestID: manifestID, EdgeID: edgeID, PredecessorID: pred, OriginID: origin,
		InitiatingEvent: EventRef{SessionID: pred, EventID: eventID(h.initiating.Seq), Digest: eventDigest(*h.initiating)},
		CreatedAt:       now, Actor: actor, Reason: args.Reason, Corrects: args.Corrects,
		Title: args.Title, Description: args.Description, PredecessorTitle: h.title,
		Included: nonNil(c.included), Omitted: nonNil(c.omitted), State: nonNilState(state),
		Compiler: compilerID, Model: model, Tokens: c.tokens,
		Digests: Digests{Context: digestOf(c.context), Handoff: digestOf(marshal(args.Handoff))},
	}
	return in, nil
}

// checkRate refuses pathological chains: too many successors of one
// predecessor, or too many edges along one ancestry, within the window.
// Replays never reach it, so retrying a call is never rate limited.
func (s *Service) checkRate(ctx context.Context, pred string, path []Edge, now int64) error {
	since := now - s.opts.RateWindow.Milliseconds()
	n, err := countSince(ctx, s.db, pred, since)
	if err != nil {
		return err
	}
	if n+1 > s.opts.MaxPerSession {
		return diag.Newf(diag.RateLimited, "session %s was continued %d times in the last %s", pred, n, s.opts.RateWindow).
			With("sessionId", pred).With("count", n)
	}
	chain := 0
	for _, e := range path {
		if e.CreatedAt >= since {
			chain++
		}
	}
	if chain+1 > s.opts.MaxChain {
		return diag.Newf(diag.RateLimited, "the lineage of session %s grew by %d continuations in the last %s", pred, chain, s.opts.RateWindow).
			With("sessionId", pred).With("count", chain)
	}
	return nil
}

// hostPlan is the predecessor's latest plan/update, if any.
func hostPlan(h *history) *planState {
	if h.plan == nil {
		return nil
	}
	return &planState{revision: planRevision(h.plan), eventID: eventID(h.plan.Seq), data: h.plan.Data}
}

// carriedByEdge is what a corrected successor must carry: exactly the runs
// and plan the edge being corrected carried out of the same predecessor.
func (s *Service) carriedByEdge(ctx context.Context, edgeID string) ([]pendingEffect, *planState, error) {
	items, err := loadState(ctx, s.db, edgeID)
	if err != nil {
		return nil, nil, err
	}
	var pending []pendingEffect
	var plan *planState
	for _, it := range items {
		switch {
		case it.Kind == StatePendingRun:
			seq, _ := parseEventID(it.EventID)
			pending = append(pending, pendingEffect{ID: it.Key, Kind: it.RunKind, CallID: it.CallID, Seq: seq})
		case it.Kind == StatePlan && it.Action == "carry":
			plan = &planState{revision: it.Revision, eventID: it.EventID, data: it.Data}
		}
	}
	return pending, plan, nil
}

// splitWindow splits the messages before the initiating one (oldest first)
// into older excerpts and the most recent n.
func splitWindow(before []hostapi.Event, n int) (recent, excerpts []hostapi.Event) {
	if len(before) <= n {
		return before, nil
	}
	return before[len(before)-n:], before[:len(before)-n]
}

func nonNil(v []ManifestItem) []ManifestItem {
	if v == nil {
		return []ManifestItem{}
	}
	return v
}

func nonNilState(v []StateItem) []StateItem {
	if v == nil {
		return []StateItem{}
	}
	return v
}

// withoutRuns drops the pending effects another continuation already
// carried away — delegated runs and tool calls alike (a DSH host has no
// run events; its pending effects are tool calls without a result). A
// carried effect is the successor's to settle, so for the predecessor it is
// settled: its next continue_session neither lists it as unsettled nor
// refuses it as already carried (issue 28 #4).
func withoutRuns(pending []pendingEffect, moved map[string]bool) []pendingEffect {
	var out []pendingEffect
	for _, p := range pending {
		if !moved[p.ID] {
			out = append(out, p)
		}
	}
	return out
}

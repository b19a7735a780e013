package server

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/continuity-dev/continuity/boundary"
	"github.com/continuity-dev/continuity/continuation"
)

// withReseed resolves continue_session's "projection": "reseed": reason,
// title, handoff and sources that the call leaves out come from the
// session's latest complete RESEED decision (docs/design.md §4: a RESEED hands
// its positive current-state projection to session continuation).
// Arguments without that member are returned unchanged. The decision's
// verified query comes back beside them: the successor receives it as is.
func (svc *services) withReseed(ctx context.Context, sessionID string, args json.RawMessage) (json.RawMessage, string, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args, "", nil // the continuation tool names the malformed arguments
	}
	var mode string
	if json.Unmarshal(m["projection"], &mode) != nil || mode != "reseed" {
		return args, "", nil
	}
	d, ok, err := svc.boundary.Latest(ctx, sessionID)
	if err != nil && !errors.Is(err, boundary.ErrNotDecided) {
		return nil, "", err
	}
	if !ok || d.Decision != boundary.Reseed || d.Reseed == nil || !d.Reseed.Complete || d.Reseed.Projection == nil {
		return nil, "", boundary.ErrReseedUnavailable
	}
	p := d.Reseed.Projection
	for name, v := range map[string]any{"reason": p.Reason, "title": p.Title, "handoff": p.Handoff, "sources": p.Sources} {
		if _, given := m[name]; given {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, "", err
		}
		m[name] = b
	}
	out, err := json.Marshal(m)
	return out, p.Query, err
}

// expandReseed fills a continue_session call that asks for the RESEED
// projection. A replay (the call already has its edge) is left as sent: it
// is answered from the store, whatever the latest decision is now.
func (svc *services) expandReseed(ctx context.Context, call *continuation.ToolCall) error {
	if !asksForReseed(call.Arguments) {
		return nil
	}
	call.Sent = call.Arguments
	known, err := svc.cont.Known(ctx, call.SessionID, call.Turn, call.CallID)
	if err != nil || known {
		return err
	}
	call.Arguments, call.Query, err = svc.withReseed(ctx, call.SessionID, call.Arguments)
	return err
}

func asksForReseed(args json.RawMessage) bool {
	var m struct {
		Projection string `json:"projection"`
	}
	return json.Unmarshal(args, &m) == nil && m.Projection == "reseed"
}

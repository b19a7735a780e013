package boundary

import "context"

// EventBoundary is the remote event that announces a decision, so a client
// shows the APPEND or RESEED record of the turn that just ended without
// polling the continuity.boundary Remote.
const EventBoundary = "continuity.boundary"

// BoundaryEvent is its single argument: which session decided what at
// which boundary, and why. The full record is the Remote's.
type BoundaryEvent struct {
	AgentID      string  `json:"agentId"`
	DecisionID   int64   `json:"decisionId"`
	Decision     Verdict `json:"decision"`
	Reason       Reason  `json:"reason"`
	Trigger      Trigger `json:"trigger"`
	ThroughEvent string  `json:"throughEvent,omitempty"`
	Complete     *bool   `json:"complete,omitempty"` // a RESEED's query verified (step 7)
}

// announce emits the decision. A lost notification loses nothing: the
// record is stored and the Remote returns it; the host client logs the
// failure, so it is not reported again here.
func (s *Service) announce(ctx context.Context, d Decision) {
	if s.opts.Emit == nil {
		return
	}
	ev := BoundaryEvent{AgentID: d.SessionID, DecisionID: d.ID, Decision: d.Decision, Reason: d.Reason,
		Trigger: d.Trigger, ThroughEvent: d.ThroughEvent}
	if d.Reseed != nil {
		c := d.Reseed.Complete
		ev.Complete = &c
	}
	_ = s.opts.Emit.Emit(ctx, EventBoundary, ev)
}

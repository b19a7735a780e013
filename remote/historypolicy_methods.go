package remote

import (
	"context"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
)

// Arguments of each method, as the ui-contract schemas define them.
type (
	getArgs struct {
		AgentID string `json:"agentId"`
	}
	setArgs struct {
		AgentID  string `json:"agentId"`
		Revision int64  `json:"revision"`
		Enabled  *bool  `json:"enabled"` // null: remove the row, use the default
	}
	authorizeArgs struct {
		AgentID  string `json:"agentId"`
		Revision int64  `json:"revision"`
		Enabled  bool   `json:"enabled"`
	}
	defaultsArgs   struct{}
	setDefaultArgs struct {
		Revision int64 `json:"revision"`
		Enabled  bool  `json:"enabled"`
	}
)

// PolicyView is SessionContinuationView (view/SessionContinuationView): the
// persistent policy the next turn will capture, and beside it what the
// running turn captured, a waiting legacy consent and the latest
// compaction status.
type PolicyView struct {
	Enabled            bool            `json:"enabled"`
	Revision           int64           `json:"revision"`
	Source             string          `json:"source,omitempty"`
	ActiveTurnEnabled  *bool           `json:"activeTurnEnabled,omitempty"`
	NextTurnAuthorized bool            `json:"nextTurnAuthorized,omitempty"`
	Compaction         *CompactionView `json:"compaction,omitempty"`
}

// viewStates are the compaction states the view shows (docs/protocol.md §5).
// A bracket the plugin did not see ("unknown") is left out, not guessed.
var viewStates = map[string]bool{"running": true, "completed": true, "failed": true, "cancelled": true, "blocked": true}

// CompactionView is a compaction bracket's id and state.
type CompactionView struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// sessionChanged and defaultsChanged are the two forms of the changed
// event's single argument.
type sessionChanged struct {
	AgentID            string `json:"agentId"`
	Enabled            bool   `json:"enabled"`
	Revision           int64  `json:"revision"`
	Source             string `json:"source"`
	NextTurnAuthorized bool   `json:"nextTurnAuthorized,omitempty"`
}

type defaultsChanged struct {
	Defaults settings.Default `json:"defaults"`
}

func (s *HistoryPolicy) get(ctx context.Context, a getArgs) (any, error) {
	agent, err := s.lookup(ctx, a.AgentID)
	if err != nil {
		return nil, err
	}
	r, err := s.policy.Resolve(ctx, a.AgentID, agent.Header)
	if err != nil {
		return nil, err
	}
	return s.view(a.AgentID, r), nil
}

func (s *HistoryPolicy) set(ctx context.Context, a setArgs) (any, error) {
	agent, err := s.lookup(ctx, a.AgentID)
	if err != nil {
		return nil, err
	}
	r, wrote, err := s.policy.Set(ctx, a.AgentID, agent.Header, a.Revision, a.Enabled)
	if err != nil {
		return nil, err
	}
	v := s.view(a.AgentID, r)
	if wrote {
		s.announceView(ctx, a.AgentID, v)
	}
	return v, nil
}

// authorizeNext records or withdraws a legacy one-turn consent. Nothing is
// written to settings, but the client's revision must still be current, as
// for every other change, so a client acting on a stale view is told.
func (s *HistoryPolicy) authorizeNext(ctx context.Context, a authorizeArgs) (any, error) {
	agent, err := s.lookup(ctx, a.AgentID)
	if err != nil {
		return nil, err
	}
	r, err := s.policy.Resolve(ctx, a.AgentID, agent.Header)
	if err != nil {
		return nil, err
	}
	if r.Revision != a.Revision {
		return nil, settings.ConflictError(a.Revision, r.Revision)
	}
	changed := s.consent.Authorized(a.AgentID) != a.Enabled
	if a.Enabled {
		err = s.consent.Authorize(a.AgentID)
	} else {
		s.consent.Revoke(a.AgentID)
	}
	if err != nil {
		return nil, err
	}
	v := s.view(a.AgentID, r)
	if changed {
		s.announceView(ctx, a.AgentID, v)
	}
	return v, nil
}

func (s *HistoryPolicy) defaults(ctx context.Context, _ defaultsArgs) (any, error) {
	return s.policy.Defaults(ctx)
}

func (s *HistoryPolicy) setDefault(ctx context.Context, a setDefaultArgs) (any, error) {
	d, wrote, err := s.policy.SetDefault(ctx, a.Revision, a.Enabled)
	if err != nil {
		return nil, err
	}
	if wrote {
		s.announce(ctx, defaultsChanged{Defaults: d})
	}
	return d, nil
}

// lookup finds the session through the host. Host failures keep their DSH
// code (session-not-found, agent-busy); a failure without one is
// host-unavailable; an answer for another session is session-not-found.
func (s *HistoryPolicy) lookup(ctx context.Context, id string) (hostapi.Agent, error) {
	if s.agents == nil {
		// The host offers no agent lookup: the birth evidence is what its
		// session events said, if the turn lifecycle saw them.
		agent := hostapi.Agent{SessionID: id, Status: "idle"}
		if h, ok := s.turns.(interface {
			Header(string) *hostapi.SessionHeader
		}); ok {
			agent.Header = h.Header(id)
		}
		return agent, nil
	}
	agent, err := s.agents.Get(ctx, id)
	if err != nil {
		if diag.CodeOf(err) == "" {
			return hostapi.Agent{}, diag.Newf(HostUnavailable, "agents/get failed: %v", err)
		}
		return hostapi.Agent{}, err
	}
	if agent.SessionID != id {
		return hostapi.Agent{}, diag.New(SessionNotFound, "the host answered for another session")
	}
	return agent, nil
}

// announceView sends the changed event for a session's new view.
func (s *HistoryPolicy) announceView(ctx context.Context, id string, v PolicyView) {
	s.announce(ctx, sessionChanged{AgentID: id, Enabled: v.Enabled, Revision: v.Revision, Source: v.Source, NextTurnAuthorized: v.NextTurnAuthorized})
}

// view adds the turn lifecycle's and the consent's state to a resolution.
func (s *HistoryPolicy) view(id string, r settings.Resolution) PolicyView {
	v := PolicyView{Enabled: r.Enabled, Revision: r.Revision, Source: r.Source, NextTurnAuthorized: s.consent.Authorized(id)}
	if s.turns != nil {
		if on, running := s.turns.ActiveTurnEnabled(id); running {
			v.ActiveTurnEnabled = &on
		}
		if cid, state, ok := s.turns.Compaction(id); ok && viewStates[state] {
			v.Compaction = &CompactionView{ID: cid, State: state}
		}
	}
	return v
}

// announce sends the changed event. The change is already committed and
// the result carries the new state, so a lost event only delays other
// clients until they re-read; its error is deliberately not the caller's
// failure (the host client logs it). It survives the request's cancellation for the same reason.
func (s *HistoryPolicy) announce(ctx context.Context, arg any) {
	if s.emit != nil {
		_ = s.emit.Emit(context.WithoutCancel(ctx), PolicyChangedEvent, arg)
	}
}

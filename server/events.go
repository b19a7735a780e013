package server

import (
	"context"
	"encoding/json"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/turns"
	"github.com/continuity-dev/continuity/wire"
)

func view(b []byte) string { return wire.View(b) }

// svc returns the initialized services (the dispatcher admits no feature
// method before initialize completes).
func (s *Server) svc() *services {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.services
}

// sessionEvent applies a session event notification (DSH's session.event
// or session/event) to every feature in order; it runs in the read loop
// and only touches memory. Only the envelope is checked here: each feature
// reads the members it needs and skips only its own effect when one of
// them is malformed.
func (s *Server) sessionEvent(raw []byte) {
	ev, headerErr, err := readSessionEvent(raw)
	if err != nil {
		s.log.Warn("session event not applied", zap.String("reason", err.Error()))
		return
	}
	if headerErr != nil {
		s.log.Warn("session event header ignored", zap.String("session", ev.SessionID),
			zap.Int64("seq", ev.Event.Seq), zap.String("reason", headerErr.Error()))
	}
	svc := s.svc()
	svc.turns.Observe(ev)
	svc.observe(ev)
}

func (s *Server) agentDisposed(raw []byte) {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(raw, &p) == nil {
		s.svc().dispose(p.SessionID)
	}
}

func (s *Server) llmResponse(raw []byte) {
	var p struct {
		RequestID string `json:"requestId"`
		Status    int    `json:"status"`
		ErrorBody string `json:"errorBody"`
	}
	if json.Unmarshal(raw, &p) == nil {
		s.svc().turns.Response(p.RequestID, p.Status, p.ErrorBody)
	}
}

func (s *Server) agentRequest(ctx context.Context, raw []byte) (any, error) {
	var req turns.AgentRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, invalidParams("agent/request: " + wire.DecodeError(err))
	}
	svc := s.svc()
	if err := svc.continuedTurn(ctx, req); err != nil {
		return nil, err
	}
	svc.models.set(req.SessionID, req.Config.Provider, req.Config.Model)
	adm, err := svc.turns.Admit(ctx, req)
	if err != nil {
		return nil, err
	}
	// The host's config bytes go back unchanged.
	cfg := gjson.Get(view(raw), "config")
	return wire.Object().Raw("config", []byte(cfg.Raw)).Set("admission", adm).Result()
}

// requestCancelled revokes the turn of an agent/request or llm/payload that
// the host cancelled after it had been served: the host sends nothing, so
// nothing more of that turn may be filtered.
func (s *Server) requestCancelled(params []byte) {
	if id := gjson.Get(view(params), "requestId"); id.Type == gjson.String {
		s.svc().turns.Cancelled(id.Str)
	}
}

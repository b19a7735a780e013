package server

import (
	"context"

	"go.uber.org/zap"

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
// and only touches memory. Only the envelope was checked
// (readSessionEventParams): each feature reads the members it needs and
// skips only its own effect when one of them is malformed.
//
// The event's Data, Time and SurfaceOp are borrowed from the frame: the
// entries borrow (methods.go), so the frame's buffer goes back to the
// wire's pool once every feature has applied the event, and the next
// large frame — the next 17 MiB tool/result — reads into it instead of a
// fresh allocation the collector must then free. No feature may keep a
// slice of them past its call: each copies the few bytes it keeps (ids,
// excerpts, a prompt's text), and none hands the event to a goroutine.
func (s *Server) sessionEvent(p sessionEventParams) {
	ev := p.ev
	if p.headerErr != nil {
		s.log.Warn("session event header ignored", zap.String("session", ev.SessionID),
			zap.Int64("seq", ev.Event.Seq), zap.String("reason", p.headerErr.Error()))
	}
	svc := s.svc()
	svc.turns.Observe(ev)
	svc.observe(ev)
}

func (s *Server) agentDisposed(p agentDisposedParams) { s.svc().dispose(p.SessionID) }

func (s *Server) llmResponse(p llmResponseParams) {
	s.svc().turns.Response(p.RequestID, p.Status, p.ErrorBody)
}

func (s *Server) agentRequest(ctx context.Context, p agentRequestParams) (any, error) {
	req := p.AgentRequest
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
	return wire.Object().Raw("config", p.config).Set("admission", adm).Result()
}

// requestCancelled revokes the turn of an agent/request, llm/payload or
// llm/payloadDigest that the host cancelled after it had been served: the
// host sends nothing, so nothing more of that turn may be filtered.
func (s *Server) requestCancelled(requestID string) {
	if requestID != "" {
		s.svc().turns.Cancelled(requestID)
	}
}

package server

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/boundary"
	"github.com/continuity-dev/continuity/continuation"
	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/turns"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// toolDefinitions lists every tool continuity declares in initialize, with
// each tool's argument schema as its inputSchema. Every one of them reads
// or creates host sessions, so a host without the sessions capability is
// offered none: a tool it could only answer with a failure would mislead
// the model.
func toolDefinitions(sessions bool) ([]toolDef, error) {
	out := []toolDef{}
	if !sessions {
		return out, nil
	}
	for _, d := range continuation.ToolDefinitions() {
		schema, err := uicontract.Raw(d.InputSchema)
		if err != nil {
			return nil, err
		}
		out = append(out, toolDef{Name: d.Name, Description: d.Description, InputSchema: schema})
	}
	for _, d := range boundary.Tools() {
		out = append(out, toolDef{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema})
	}
	return out, nil
}

type toolCallParams struct {
	SessionID string          `json:"sessionId"`
	Turn      int64           `json:"turn"`
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// toolCall routes tool/call to the package that owns the tool. A tool the
// plugin did not declare to this host is -32602. A turn that a
// continuation ended admits no more tool calls; only a replay of the
// continue_session call that ended it is answered (with its successor).
func (s *Server) toolCall(ctx context.Context, p toolCallParams) (any, error) {
	if len(p.Arguments) == 0 {
		p.Arguments = json.RawMessage("{}")
	}
	svc := s.svc()
	if !svc.declares(p.Name) {
		return nil, invalidParams("unknown tool " + strconv.Quote(clip(p.Name)))
	}
	if err := svc.stored(); err != nil {
		return continuation.ErrorResult(err), nil
	}
	if err := svc.turnOpen(ctx, p); err != nil {
		return continuation.ErrorResult(err), nil
	}
	switch p.Name {
	case boundary.ToolPinTask:
		return svc.boundary.CallTool(ctx, boundary.ToolCall{SessionID: p.SessionID, Turn: int(p.Turn),
			CallID: p.CallID, Name: p.Name, Arguments: p.Arguments})
	}
	for _, d := range continuation.ToolDefinitions() {
		if d.Name != p.Name {
			continue
		}
		call := continuation.ToolCall{SessionID: p.SessionID, Turn: p.Turn,
			CallID: p.CallID, Name: p.Name, Arguments: p.Arguments, Model: svc.models.get(p.SessionID)}
		if p.Name == continuation.ToolContinueSession {
			if err := svc.expandReseed(ctx, &call); err != nil {
				return continuation.ErrorResult(err), nil
			}
		}
		res, err := svc.cont.Tool(ctx, call)
		if err != nil {
			return nil, err
		}
		if p.Name == continuation.ToolContinueSession {
			svc.inheritPin(ctx, res)
		}
		return res, nil
	}
	return nil, invalidParams("unknown tool " + strconv.Quote(clip(p.Name)))
}

// declares reports whether initialize offered the tool to this host.
func (svc *services) declares(name string) bool {
	for _, d := range svc.tools {
		if d.Name == name {
			return true
		}
	}
	return false
}

// turnOpen refuses a tool call in a turn that a continuation ended, except
// the replay of a continue_session call that already has its edge.
func (svc *services) turnOpen(ctx context.Context, p toolCallParams) error {
	if p.Name == continuation.ToolContinueSession {
		if known, err := svc.cont.Known(ctx, p.SessionID, p.Turn, p.CallID); err != nil || known {
			return err
		}
	}
	return svc.cont.TurnEnded(ctx, p.SessionID, p.Turn)
}

// continuedTurn applies session continuation to an agent/request. A turn
// that a continuation ended has no later steps: the successor answers
// (CONTINUITY_TURN_ENDED). A person writing in a continued predecessor is
// offered the current continuation (or a branch) before the agent answers
// there. Without the store there is no continuation to apply.
func (svc *services) continuedTurn(ctx context.Context, req turns.AgentRequest) error {
	if svc.stored() != nil {
		return nil
	}
	if err := svc.cont.TurnEnded(ctx, req.SessionID, req.Turn); err != nil {
		return err
	}
	if req.Step == 1 {
		n, err := svc.cont.OfferReturn(ctx, req.SessionID, req.Turn)
		if err != nil {
			svc.log.Warn("return offer not sent", zap.String("session", req.SessionID), zap.Error(err))
		}
		if n != nil {
			svc.turns.HoldForTurn(req.SessionID, turns.Notice{ID: n.ID, AgentID: n.AgentID, Turn: n.Turn, Kind: n.Kind,
				TextKey: n.TextKey, At: n.At, Continuation: &turns.ContinuationChoice{SuccessorID: n.Continuation.SuccessorID,
					EdgeID: n.Continuation.EdgeID, Choices: n.Continuation.Choices}})
		}
	}
	return nil
}

// inheritPin carries the originating-task pin into a new successor from the
// edge's predecessor (the caller, or for a corrected successor the session
// the corrected edge started from), so its first boundary decides against
// the same task.
func (svc *services) inheritPin(ctx context.Context, res continuation.ToolResult) {
	if res.IsError {
		return
	}
	st, ok := res.Structured.(continuation.ContinueResult)
	if !ok || st.SuccessorID == "" {
		return // not a continuation (or a replay without a successor yet)
	}
	edge, err := svc.cont.Handoff(ctx, st.EdgeID)
	if err != nil {
		svc.log.Warn("pin not inherited: the edge cannot be read", zap.String("edge", st.EdgeID), zap.Error(err))
		return
	}
	if _, err := svc.boundary.InheritPin(ctx, st.SuccessorID, edge.PredecessorID); err != nil {
		svc.log.Warn("pin not inherited", zap.String("successor", st.SuccessorID),
			zap.String("predecessor", edge.PredecessorID), zap.String("code", diag.CodeOf(err)), zap.Error(err))
	}
}

// models remembers each session's latest agent/request provider and model,
// so a projection manifest records the model of the turn that continued.
type models struct {
	mu sync.Mutex
	m  map[string]continuation.Model
}

// maxModels bounds the map for hosts that never dispose agents; losing an
// entry only leaves a manifest without the model.
const maxModels = 4096

func (m *models) set(sessionID, provider, model string) {
	m.mu.Lock()
	if _, ok := m.m[sessionID]; !ok && len(m.m) >= maxModels {
		for id := range m.m { // any one: map order is arbitrary
			delete(m.m, id)
			break
		}
	}
	m.m[sessionID] = continuation.Model{Provider: provider, Model: model}
	m.mu.Unlock()
}

func (m *models) get(sessionID string) *continuation.Model {
	m.mu.Lock()
	defer m.mu.Unlock()
	if x, ok := m.m[sessionID]; ok {
		return &x
	}
	return nil
}

func (m *models) forget(sessionID string) {
	m.mu.Lock()
	delete(m.m, sessionID)
	m.mu.Unlock()
}

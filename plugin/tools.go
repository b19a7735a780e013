package plugin

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/continuity-dev/continuity/boundary"
	"github.com/continuity-dev/continuity/continuation"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// toolDefinitions lists every tool continuity declares in initialize, with
// each tool's argument schema as its inputSchema.
func toolDefinitions() ([]toolDef, error) {
	var out []toolDef
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
// plugin does not declare is -32602.
func (s *Server) toolCall(ctx context.Context, raw []byte) (any, error) {
	var p toolCallParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams("tool/call: " + err.Error())
	}
	if len(p.Arguments) == 0 {
		p.Arguments = json.RawMessage("{}")
	}
	svc := s.svc()
	switch p.Name {
	case boundary.ToolPinTask:
		return svc.boundary.CallTool(ctx, boundary.ToolCall{SessionID: p.SessionID, Turn: int(p.Turn),
			CallID: p.CallID, Name: p.Name, Arguments: p.Arguments})
	}
	for _, d := range continuation.ToolDefinitions() {
		if d.Name != p.Name {
			continue
		}
		res, err := svc.cont.Tool(ctx, continuation.ToolCall{SessionID: p.SessionID, Turn: p.Turn,
			CallID: p.CallID, Name: p.Name, Arguments: p.Arguments})
		if err != nil {
			return nil, err
		}
		if p.Name == continuation.ToolContinueSession {
			svc.inheritPin(ctx, p.SessionID, res)
		}
		return res, nil
	}
	return nil, invalidParams("unknown tool " + strconv.Quote(clip(p.Name)))
}

// inheritPin carries the originating-task pin into a new successor, so its
// first boundary decides against the same task.
func (svc *services) inheritPin(ctx context.Context, predecessor string, res continuation.ToolResult) {
	if res.IsError {
		return
	}
	b, err := json.Marshal(res.Structured)
	if err != nil {
		return
	}
	var st struct {
		SuccessorID string `json:"successorId"`
	}
	if json.Unmarshal(b, &st) != nil || st.SuccessorID == "" {
		return
	}
	_, _ = svc.boundary.InheritPin(ctx, st.SuccessorID, predecessor)
}

package boundary

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/continuity-dev/continuity/continuation"
	"github.com/continuity-dev/continuity/diag"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// ToolPinTask is the tool through which the agent restates a replaced task.
const ToolPinTask = "pin_task"

// pinTaskSchema is pin_task's inputSchema, the same document as
// ui-contract/schemas/tool/pin_task.args.json (a test keeps them equal). It
// is self-contained so that hosts can show it to models as it is.
const pinTaskSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "pin_task arguments",
  "description": "Restate the originating task when the user replaces it. text is the new task exactly as it is to be pursued; reason says why the task changed. The next context boundary reseeds from the new pin.",
  "type": "object",
  "properties": {
    "text": {"type": "string", "minLength": 1, "maxLength": 16384},
    "reason": {"type": "string", "minLength": 1, "maxLength": 1024}
  },
  "required": ["text", "reason"],
  "additionalProperties": false
}`

// ToolDef declares a tool in initialize's capabilities.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Tools lists the tools this package serves.
func Tools() []ToolDef {
	return []ToolDef{{
		Name:        ToolPinTask,
		Description: "Restate the originating task when the user replaces it; the next boundary reseeds from the new pin.",
		InputSchema: json.RawMessage(pinTaskSchema),
	}}
}

// ToolCall is one tool/call addressed to this package. EventID is the seq
// of the user message that replaced the task, when the lead knows it; 0
// pins to the person's prompt of the call's turn (injected context never
// counts), or the latest prompt when that turn's was not observed.
type ToolCall struct {
	SessionID string
	Turn      int
	CallID    string
	Name      string
	Arguments json.RawMessage
	EventID   int64
}

// ToolResult and Content are the tool/call result shape (docs/protocol.md §4),
// shared with the continuation tools so both report failures alike.
type (
	ToolResult = continuation.ToolResult
	Content    = continuation.Content
)

// PinTaskResult is pin_task's structured result (tool/pin_task.structured).
type PinTaskResult struct {
	Digest  string    `json:"digest"`
	EventID string    `json:"eventId"`
	Source  PinSource `json:"source"`
}

// CallTool serves pin_task. Mistakes the model can correct (arguments,
// text, an unknown event) come back as an isError result whose text starts
// with the code; store failures and unknown tools are returned as errors.
func (s *Service) CallTool(ctx context.Context, call ToolCall) (ToolResult, error) {
	if call.Name != ToolPinTask {
		return ToolResult{}, diag.Newf(diag.BoundaryUnknownTool, "%q is not a boundary tool", call.Name)
	}
	args := call.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	var a struct {
		Text   string `json:"text"`
		Reason string `json:"reason"`
	}
	if err := uicontract.Validate("tool/pin_task.args", args); err != nil {
		return errorResult(diag.Newf(diag.BoundaryArgumentsInvalid, "tool/pin_task.args: %v", err)), nil
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return errorResult(diag.Newf(diag.BoundaryArgumentsInvalid, "tool/pin_task.args: %v", err)), nil
	}
	at := call.EventID
	if at == 0 {
		at = s.promptOfTurn(call.SessionID, int64(call.Turn))
	}
	pin, err := s.PinTask(ctx, call.SessionID, at, a.Text, a.Reason)
	switch diag.CodeOf(err) {
	case "":
	case diag.BoundaryArgumentsInvalid, diag.PinInvalid, diag.PinEventUnknown:
		return errorResult(err), nil
	default:
		return ToolResult{}, err
	}
	return ToolResult{
		Content: []Content{{Type: "text", Text: fmt.Sprintf(
			"Pinned the task as %s at event %d. The next context boundary reseeds from this pin.", pin.Digest, pin.EventID)}},
		Structured: PinTaskResult{Digest: pin.Digest, EventID: eventID(pin.EventID), Source: pin.Source},
	}, nil
}

// errorResult reports a failure the model can read and fix.
func errorResult(err error) ToolResult { return continuation.ErrorResult(err) }

package continuation

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/sqlstore"
)

// Service is session continuation for one plugin process. It is safe for
// concurrent use: each durable step (the pending edge, then its commit) is
// its own SQLite transaction, and concurrent replays of one call converge
// on the same edge.
type Service struct {
	db       *sql.DB
	sessions hostapi.Sessions
	emit     hostapi.Emitter
	opts     Options
}

// Open migrates the continuation store in db (opened with sqlstore.Open)
// and returns the service. sessions creates and reads host sessions; emit
// forwards session.continued to clients and may be nil in tools that do not
// navigate.
func Open(ctx context.Context, db *sql.DB, sessions hostapi.Sessions, emit hostapi.Emitter, opts Options) (*Service, error) {
	if err := sqlstore.Migrate(ctx, db, component, migrations); err != nil {
		return nil, storeErr("migrate", err)
	}
	return &Service{db: db, sessions: sessions, emit: emit, opts: opts.withDefaults()}, nil
}

// ToolCall is one tool/call request (docs/protocol.md §4) for a continuation tool.
// Model, when the plugin knows the caller's model from agent/request, is
// recorded in the manifest.
type ToolCall struct {
	SessionID string          `json:"sessionId"`
	Turn      int64           `json:"turn"`
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Model     *Model          `json:"-"`
	// Sent, when set, is what the model sent before the caller expanded
	// Arguments (continue_session with projection "reseed"); replays are
	// matched on it.
	Sent json.RawMessage `json:"-"`
	// Query, with projection "reseed", is the RESEED decision's positive
	// current-state query exactly as boundary step 7 verified it: the
	// successor receives it as the runtime's query section.
	Query string `json:"-"`
}

// Content is one text block of a tool result.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ToolResult is the tool/call result shape: {content, structured?,
// isError?, endsTurn?}. A failed call is a result the model reads, with
// structured {error: {code, message, details}}.
type ToolResult struct {
	Content    []Content `json:"content"`
	Structured any       `json:"structured,omitempty"`
	IsError    bool      `json:"isError,omitempty"`
	EndsTurn   bool      `json:"endsTurn,omitempty"`
}

// ToolError is the structured member of a failed tool result.
type ToolError struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody is a diagnostic as tools and Remotes report it.
type ErrorBody struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// errorBody turns any error into a named ErrorBody; an error without a
// code is reported as a store failure rather than without a name.
func errorBody(err error) ErrorBody {
	b := diag.BodyOf(err, diag.StoreFailed)
	return ErrorBody{Code: b.Code, Message: b.Message, Details: b.Details}
}

// ErrorResult is a failed tool call as the model reads it: the code leads
// the text and structured.error carries code, message and details.
func ErrorResult(err error) ToolResult {
	b := errorBody(err)
	return ToolResult{Content: []Content{{Type: "text", Text: b.Code + ": " + b.Message}}, Structured: ToolError{Error: b}, IsError: true}
}

func textResult(text string, structured any) ToolResult {
	return ToolResult{Content: []Content{{Type: "text", Text: text}}, Structured: structured}
}

// Tool runs one continuation tool. Domain failures come back as isError
// results the model can act on; the error return is only for a tool name
// this package does not own (CONTINUITY_UNKNOWN_TOOL), so the plugin can
// route the call elsewhere.
func (s *Service) Tool(ctx context.Context, call ToolCall) (ToolResult, error) {
	var res ToolResult
	var err error
	switch call.Name {
	case ToolContinueSession:
		res, err = s.continueSession(ctx, call)
	case ToolSessionRecall:
		res, err = s.recall(ctx, call)
	case ToolSessionLineage:
		res, err = s.lineageTool(ctx, call)
	case ToolProjectionManifest:
		res, err = s.manifestTool(ctx, call)
	default:
		return ToolResult{}, diag.Newf(diag.UnknownTool, "%s is not a continuation tool", call.Name).With("name", call.Name)
	}
	if err != nil {
		return ErrorResult(err), nil
	}
	return res, nil
}

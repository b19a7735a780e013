package hostapi

import (
	"context"
	"time"
)

// Caller sends one request to the host and decodes its result. The plugin's
// wire implements it; tests use in-memory doubles. Errors the host returns
// with a data.code come back as *diag.Error values carrying that code.
type Caller interface {
	Call(ctx context.Context, method string, params, result any) error
	Notify(ctx context.Context, method string, params any) error
}

// DefaultTimeout bounds every plugin → host call that has no earlier deadline.
const DefaultTimeout = 10 * time.Second

// Settings is the host's settings service (or the embedded equivalent).
type Settings interface {
	Describe(ctx context.Context, ns string) (Namespace, error)
	Mutate(ctx context.Context, ns string, ops []Op, expectedRevision int64) (int64, error)
}

// Agents looks sessions up by id.
type Agents interface {
	Get(ctx context.Context, sessionID string) (Agent, error)
}

// Sessions creates and reads sessions.
type Sessions interface {
	Create(ctx context.Context, req CreateSession) (Created, error)
	Read(ctx context.Context, sessionID string, fromSeq, toSeq int64) (Events, error)
}

// Emitter sends remote/event notifications that the host forwards to clients.
type Emitter interface {
	Emit(ctx context.Context, event string, args ...any) error
}

// Client is the typed plugin → host client over a Caller. Every call gets
// DefaultTimeout unless ctx already ends sooner.
type Client struct {
	c Caller
}

// NewClient returns a typed client over c.
func NewClient(c Caller) *Client { return &Client{c: c} }

func (h *Client) call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	return h.c.Call(ctx, method, params, result)
}

// Describe calls settings/describe.
func (h *Client) Describe(ctx context.Context, ns string) (Namespace, error) {
	var out Namespace
	err := h.call(ctx, "settings/describe", map[string]any{"ns": ns}, &out)
	return out, err
}

// Mutate calls settings/mutate and returns the new revision.
func (h *Client) Mutate(ctx context.Context, ns string, ops []Op, expectedRevision int64) (int64, error) {
	var out struct {
		Revision int64 `json:"revision"`
	}
	err := h.call(ctx, "settings/mutate", map[string]any{"ns": ns, "ops": ops, "expectedRevision": expectedRevision}, &out)
	return out.Revision, err
}

// Get calls agents/get.
func (h *Client) Get(ctx context.Context, sessionID string) (Agent, error) {
	var out Agent
	err := h.call(ctx, "agents/get", map[string]any{"sessionId": sessionID}, &out)
	return out, err
}

// Create calls session/create.
func (h *Client) Create(ctx context.Context, req CreateSession) (Created, error) {
	var out Created
	err := h.call(ctx, "session/create", req, &out)
	return out, err
}

// Read calls session/read for the events with fromSeq ≤ seq ≤ toSeq.
func (h *Client) Read(ctx context.Context, sessionID string, fromSeq, toSeq int64) (Events, error) {
	var out Events
	err := h.call(ctx, "session/read", map[string]any{"sessionId": sessionID, "fromSeq": fromSeq, "toSeq": toSeq}, &out)
	return out, err
}

// Emit sends a remote/event notification.
func (h *Client) Emit(ctx context.Context, event string, args ...any) error {
	if args == nil {
		args = []any{}
	}
	return h.c.Notify(ctx, "remote/event", map[string]any{"event": event, "args": args})
}

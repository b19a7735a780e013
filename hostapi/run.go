package hostapi

import (
	"context"
	"encoding/json"
)

// StartRun is the params of session/run (docs/protocol.md §16.5): the host
// starts the successor's first run with the person's initiating message,
// exactly as its user/message event carried it, and the projection that
// session/create gave the successor as its context.
type StartRun struct {
	SessionID     string          `json:"sessionId"`
	EdgeID        string          `json:"edgeId"`
	PredecessorID string          `json:"predecessorId"`
	Message       json.RawMessage `json:"message"`
	Context       json.RawMessage `json:"context"`
}

// RunStarted is the result of session/run.
type RunStarted struct {
	Started bool   `json:"started"`
	RunID   string `json:"runId,omitempty"`
}

// Runs is the host service that starts a successor's run; a host that
// declares capabilities.runs at initialize offers it.
type Runs interface {
	StartRun(ctx context.Context, req StartRun) (RunStarted, error)
}

// StartRun calls session/run.
func (h *Client) StartRun(ctx context.Context, req StartRun) (RunStarted, error) {
	var out RunStarted
	err := h.call(ctx, "session/run", req, &out)
	return out, err
}

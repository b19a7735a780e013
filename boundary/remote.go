package boundary

import (
	"context"
	"encoding/json"

	"github.com/continuity-dev/continuity/diag"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// The Remote this package serves: continuity.boundary {agentId}.
const (
	RemoteNamespace = "continuity"
	MethodBoundary  = "boundary"
)

// RemoteArgumentsInvalid is the DSH Remote code for bad args (PROTOCOL.md §5).
const RemoteArgumentsInvalid = diag.ArgumentsInvalid

// Remote serves continuity.<method>: boundary returns the session's latest
// decision record. Unknown methods are CONTINUITY_BOUNDARY_UNKNOWN_METHOD;
// bad args are arguments-invalid; a session without a decision is
// CONTINUITY_BOUNDARY_NOT_DECIDED.
func (s *Service) Remote(ctx context.Context, method string, args json.RawMessage) (any, error) {
	if method != MethodBoundary {
		return nil, diag.Newf(diag.BoundaryUnknownMethod, "continuity.%s is not a boundary Remote", method)
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if err := uicontract.Validate("remote/continuity/boundary.args", args); err != nil {
		return nil, diag.Newf(RemoteArgumentsInvalid, "remote/continuity/boundary.args: %v", err)
	}
	var a struct {
		AgentID string `json:"agentId"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, diag.Newf(RemoteArgumentsInvalid, "remote/continuity/boundary.args: %v", err)
	}
	s.waitDecided(ctx, a.AgentID)
	d, ok, err := s.Latest(ctx, a.AgentID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrNotDecided.With("agentId", a.AgentID)
	}
	return d, nil
}

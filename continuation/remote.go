package continuation

import (
	"context"
	"encoding/json"

	"github.com/continuity-dev/continuity/diag"
)

// Remote method names in the continuity namespace that this package serves.
const (
	RemoteLineage  = "lineage"
	RemoteHandoff  = "handoff"
	RemoteManifest = "manifest"
	// RemoteProjection is served by the plugin through ProjectionArgs and
	// Projection, because its value is written to the wire as stored bytes.
	RemoteProjection = "projection"
)

// RemoteArgumentsInvalid is the DSH Remote code for args that do not match
// remote/continuity/<method>.args (PROTOCOL.md §5). Every Remote in the
// continuity namespace uses it (boundary and the plugin's own methods do),
// so a client handles bad args one way; tool arguments keep
// CONTINUITY_ARGUMENTS_INVALID.
const RemoteArgumentsInvalid = diag.ArgumentsInvalid

// remoteArgs decodes Remote args, naming a mismatch arguments-invalid.
func remoteArgs(method string, args json.RawMessage, v any) error {
	if err := decodeArgs("remote/continuity/"+method+".args", args, v); err != nil {
		msg := err.Error()
		if d, ok := err.(*diag.Error); ok {
			msg = d.Message
		}
		return diag.New(RemoteArgumentsInvalid, msg)
	}
	return nil
}

// ProjectionArgs checks continuity.projection's args and returns the edge id.
func ProjectionArgs(args json.RawMessage) (string, error) {
	var a struct {
		EdgeID string `json:"edgeId"`
	}
	err := remoteArgs(RemoteProjection, args, &a)
	return a.EdgeID, err
}

// Remote serves continuity.lineage {agentId}, continuity.handoff {edgeId}
// and continuity.manifest {manifestId}. args are checked against
// remote/continuity/<method>.args. The value goes in {ok: true, value}; an
// error is a *diag.Error for {ok: false, error: {code, message, details}}
// (the plugin wraps it with remote.Failure). Bad args are arguments-invalid; an unknown method
// is CONTINUITY_UNKNOWN_METHOD.
func (s *Service) Remote(ctx context.Context, method string, args json.RawMessage) (any, error) {
	switch method {
	case RemoteLineage:
		var a struct {
			AgentID string `json:"agentId"`
		}
		if err := remoteArgs(RemoteLineage, args, &a); err != nil {
			return nil, err
		}
		return s.Lineage(ctx, a.AgentID)
	case RemoteHandoff:
		var a struct {
			EdgeID string `json:"edgeId"`
		}
		if err := remoteArgs(RemoteHandoff, args, &a); err != nil {
			return nil, err
		}
		return s.Handoff(ctx, a.EdgeID)
	case RemoteManifest:
		var a struct {
			ManifestID string `json:"manifestId"`
		}
		if err := remoteArgs(RemoteManifest, args, &a); err != nil {
			return nil, err
		}
		return s.Manifest(ctx, a.ManifestID)
	}
	return nil, diag.Newf(diag.UnknownMethod, "continuity.%s is not a continuation method", method).With("method", method)
}

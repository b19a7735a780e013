package server

import (
	"context"
	"encoding/json"

	"github.com/continuity-dev/continuity/remote"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
	"github.com/continuity-dev/continuity/wire"
)

// continuityNamespace is the Remote namespace of continuity's own
// features; continuityRemotes is its one method table.
const continuityNamespace = "continuity"

// remoteNamespaces is what initialize declares under capabilities.remotes.
var remoteNamespaces = []string{remote.SessionContinuationNamespace, continuityNamespace}

type invokeParams struct {
	Namespace string          `json:"namespace"`
	Method    string          `json:"method"`
	Args      json.RawMessage `json:"args"`
}

// remoteInvoke answers remote/invoke with the params its entry read
// (readInvokeParams). Every failure of a known call is a Remote envelope
// in the result, never a JSON-RPC error.
func (s *Server) remoteInvoke(ctx context.Context, p invokeParams) (any, error) {
	svc := s.svc()
	switch p.Namespace {
	case remote.SessionContinuationNamespace:
		return svc.session.Invoke(ctx, p.Method, p.Args), nil
	case continuityNamespace:
		return svc.continuityRemote(ctx, p.Method, p.Args), nil
	}
	return remote.Fail(remote.MethodNotFound, "no Remote "+clip(p.Namespace)+"/"+clip(p.Method)), nil
}

// remoteMethod is one method of the continuity namespace.
type remoteMethod struct {
	// stored marks methods that read continuity.db; while the store is
	// unavailable they answer STORAGE_UNAVAILABLE.
	stored bool
	// call decodes arguments that have passed the method's schema and
	// calls the feature. It returns the result — a remote.Envelope, or a
	// wire.RawResult for a value written as stored bytes — or the decode's
	// error, which the caller answers as arguments-invalid.
	call func(svc *services, ctx context.Context, args json.RawMessage) (any, error)
}

// typed adapts a feature call on decoded arguments to a remoteMethod's call.
func typed[T any](f func(svc *services, ctx context.Context, a T) any) func(*services, context.Context, json.RawMessage) (any, error) {
	return func(svc *services, ctx context.Context, raw json.RawMessage) (any, error) {
		var a T
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, err
		}
		return f(svc, ctx, a), nil
	}
}

// The arguments of the continuity namespace, as the schemas name them.
type (
	agentArgs struct {
		AgentID string `json:"agentId"`
	}
	accountSwitchArgs struct {
		AgentID   string `json:"agentId"`
		AccountID string `json:"accountId"`
		Choice    string `json:"choice,omitempty"`
	}
	compactArgs struct {
		AgentID      string `json:"agentId"`
		CompactionID string `json:"compactionId,omitempty"`
	}
	openSourceArgs struct {
		ManifestID string `json:"manifestId"`
		Tier       string `json:"tier"`
		Index      int    `json:"index"`
	}
	edgeArgs struct {
		EdgeID string `json:"edgeId"`
	}
	manifestArgs struct {
		ManifestID string `json:"manifestId"`
	}
)

// continuityRemotes is the continuity namespace: account switch and
// notices (turns), lineage, handoff, manifest and projection
// (continuation) and boundary (managed context). Each entry calls one
// typed method of its feature.
var continuityRemotes = map[string]remoteMethod{
	"accountSwitch": {call: typed(accountSwitch)},
	"notices": {call: typed(func(svc *services, _ context.Context, a agentArgs) any {
		return remote.Success(svc.turns.Notices(a.AgentID))
	})},
	"lineage": {stored: true, call: typed(func(svc *services, ctx context.Context, a agentArgs) any {
		return envelopeOf(svc.cont.Lineage(ctx, a.AgentID))
	})},
	"handoff": {stored: true, call: typed(func(svc *services, ctx context.Context, a edgeArgs) any {
		return envelopeOf(svc.cont.Handoff(ctx, a.EdgeID))
	})},
	"manifest": {stored: true, call: typed(func(svc *services, ctx context.Context, a manifestArgs) any {
		return envelopeOf(svc.cont.Manifest(ctx, a.ManifestID))
	})},
	"projection": {stored: true, call: typed(projection)},
	"compactVisibleHistory": {call: typed(func(svc *services, _ context.Context, a compactArgs) any {
		return envelopeOf(svc.turns.CompactVisibleHistory(a.AgentID, a.CompactionID))
	})},
	"openSource": {stored: true, call: typed(func(svc *services, ctx context.Context, a openSourceArgs) any {
		return envelopeOf(svc.cont.OpenSource(ctx, a.ManifestID, a.Tier, a.Index))
	})},
	"startRun": {stored: true, call: typed(func(svc *services, ctx context.Context, a edgeArgs) any {
		return envelopeOf(svc.cont.RetryRun(ctx, a.EdgeID))
	})},
	"boundary": {stored: true, call: typed(func(svc *services, ctx context.Context, a agentArgs) any {
		return envelopeOf(svc.boundary.Decided(ctx, a.AgentID))
	})},
}

// continuityRemote runs one method of the continuity namespace: an unknown
// method is method-not-found; a stored method answers the store's failure
// while the store is unavailable; args that do not match
// remote/continuity/<method>.args are arguments-invalid.
func (svc *services) continuityRemote(ctx context.Context, method string, args json.RawMessage) any {
	m, ok := continuityRemotes[method]
	if !ok {
		return remote.Fail(remote.MethodNotFound, "no Remote "+continuityNamespace+"/"+clip(method))
	}
	if m.stored {
		if err := svc.stored(); err != nil {
			return remote.Failure(err)
		}
	}
	schema := "remote/" + continuityNamespace + "/" + method + ".args"
	if err := uicontract.Validate(schema, args); err != nil {
		return remote.Fail(remote.ArgumentsInvalid, schema+": "+err.Error())
	}
	res, err := m.call(svc, ctx, args)
	if err != nil {
		return remote.Fail(remote.ArgumentsInvalid, schema+": "+err.Error())
	}
	return res
}

// projection serves continuity.projection {edgeId}: the successor context
// byte for byte as session/create carried it. A success is written as a
// wire.RawResult, so the stored bytes are not re-encoded; a failure is an
// ordinary Remote envelope.
func projection(svc *services, ctx context.Context, a edgeArgs) any {
	b, err := svc.cont.Projection(ctx, a.EdgeID)
	if err != nil {
		return remote.Failure(err)
	}
	res, err := wire.Object().Set("ok", true).Raw("value", b).Result()
	if err != nil {
		return remote.Failure(err)
	}
	return res
}

// envelopeOf is a Remote method's answer as a DSH envelope.
func envelopeOf(v any, err error) remote.Envelope {
	if err != nil {
		return remote.Failure(err)
	}
	return remote.Success(v)
}

package server

import (
	"context"
	"encoding/json"

	"github.com/continuity-dev/continuity/remote"
)

// continuityNamespace is the Remote namespace of continuity's own
// features, served by remote.Continuity.
const continuityNamespace = remote.ContinuityNamespace

// remoteNamespaces is what initialize declares under capabilities.remotes.
var remoteNamespaces = []string{remote.HistoryPolicyNamespace, continuityNamespace}

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
	case remote.HistoryPolicyNamespace:
		return svc.historyPolicy.Invoke(ctx, p.Method, p.Args), nil
	case continuityNamespace:
		return svc.continuityRemote(ctx, p.Method, p.Args), nil
	}
	return remote.Fail(remote.MethodNotFound, "no Remote "+clip(p.Namespace)+"/"+clip(p.Method)), nil
}

// continuityRemote runs one method of the continuity namespace
// (remote.Continuity).
func (svc *services) continuityRemote(ctx context.Context, method string, args json.RawMessage) any {
	return svc.continuity.Invoke(ctx, method, args)
}

// continuityFeatures are the features the continuity Remote calls. The
// store-backed ones stay nil interfaces, not typed nils, when
// continuity.db could not be opened; stored then says why.
func (svc *services) continuityFeatures() remote.ContinuityFeatures {
	f := remote.ContinuityFeatures{Turns: svc.turns, Policy: svc.historyPolicy, Stored: svc.stored}
	if svc.cont != nil {
		f.Lineage = svc.cont
	}
	if svc.boundary != nil {
		f.Boundaries = svc.boundary
	}
	return f
}

package plugin

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/continuity-dev/continuity/boundary"
	"github.com/continuity-dev/continuity/continuation"
	"github.com/continuity-dev/continuity/remote"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
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

// remoteInvoke answers remote/invoke. Every failure of a known call is a
// Remote envelope in the result, never a JSON-RPC error: absent or null
// args are {} (so a method without arguments, such as defaults, needs
// none, and one with required arguments answers arguments-invalid).
func (s *Server) remoteInvoke(ctx context.Context, raw []byte) (any, error) {
	p, err := splitInvokeParams(raw)
	if err != nil {
		return nil, err
	}
	if a := bytes.TrimSpace(p.Args); len(a) == 0 || bytes.Equal(a, []byte("null")) {
		p.Args = json.RawMessage("{}")
	}
	svc := s.svc()
	switch p.Namespace {
	case remote.SessionContinuationNamespace:
		return svc.session.Invoke(ctx, p.Method, p.Args), nil
	case continuityNamespace:
		if p.Method == continuation.RemoteProjection {
			return s.projection(ctx, p.Args)
		}
		return svc.continuityRemote(ctx, p.Method, p.Args), nil
	}
	return remote.Fail(remote.MethodNotFound, "no Remote "+clip(p.Namespace)+"/"+clip(p.Method)), nil
}

// remoteMethod is one method of the continuity namespace.
type remoteMethod struct {
	// stored marks methods that read continuity.db; while the store is
	// unavailable they answer STORAGE_UNAVAILABLE.
	stored bool
	call   func(svc *services, ctx context.Context, args json.RawMessage) remote.Envelope
}

// continuityRemotes is the continuity namespace: account switch and
// notices (turns), lineage/handoff/manifest (continuation) and boundary.
// The feature packages check their own arguments; the turns methods are
// checked here against remote/continuity/<method>.args.
var continuityRemotes = map[string]remoteMethod{
	"accountSwitch": {call: func(svc *services, ctx context.Context, args json.RawMessage) remote.Envelope {
		a, fail := agentArgs("accountSwitch", args)
		if fail != nil {
			return *fail
		}
		return envelopeOf(svc.turns.AccountSwitch(ctx, a.AgentID, a.AccountID))
	}},
	"notices": {call: func(svc *services, _ context.Context, args json.RawMessage) remote.Envelope {
		a, fail := agentArgs("notices", args)
		if fail != nil {
			return *fail
		}
		return remote.Success(svc.turns.Notices(a.AgentID))
	}},
	continuation.RemoteLineage:  {stored: true, call: continuationRemote(continuation.RemoteLineage)},
	continuation.RemoteHandoff:  {stored: true, call: continuationRemote(continuation.RemoteHandoff)},
	continuation.RemoteManifest: {stored: true, call: continuationRemote(continuation.RemoteManifest)},
	boundary.MethodBoundary: {stored: true, call: func(svc *services, ctx context.Context, args json.RawMessage) remote.Envelope {
		return envelopeOf(svc.boundary.Remote(ctx, boundary.MethodBoundary, args))
	}},
}

func continuationRemote(method string) func(*services, context.Context, json.RawMessage) remote.Envelope {
	return func(svc *services, ctx context.Context, args json.RawMessage) remote.Envelope {
		return envelopeOf(svc.cont.Remote(ctx, method, args))
	}
}

// continuityRemote runs one method of the continuity namespace.
func (svc *services) continuityRemote(ctx context.Context, method string, args json.RawMessage) remote.Envelope {
	m, ok := continuityRemotes[method]
	if !ok {
		return remote.Fail(remote.MethodNotFound, "no Remote "+continuityNamespace+"/"+clip(method))
	}
	if m.stored {
		if err := svc.stored(); err != nil {
			return remote.Failure(err)
		}
	}
	return m.call(svc, ctx, args)
}

// agentArgs checks and decodes the arguments of the turns methods.
func agentArgs(method string, args json.RawMessage) (a struct {
	AgentID   string `json:"agentId"`
	AccountID string `json:"accountId"`
}, fail *remote.Envelope) {
	name := "remote/" + continuityNamespace + "/" + method + ".args"
	if err := uicontract.Validate(name, args); err != nil {
		e := remote.Fail(remote.ArgumentsInvalid, continuityNamespace+"/"+method+": "+err.Error())
		return a, &e
	}
	if err := json.Unmarshal(args, &a); err != nil {
		e := remote.Fail(remote.ArgumentsInvalid, continuityNamespace+"/"+method+": "+err.Error())
		return a, &e
	}
	return a, nil
}

// envelopeOf is a Remote method's answer as a DSH envelope.
func envelopeOf(v any, err error) remote.Envelope {
	if err != nil {
		return remote.Failure(err)
	}
	return remote.Success(v)
}

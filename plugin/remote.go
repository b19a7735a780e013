package plugin

import (
	"context"
	"encoding/json"

	"github.com/continuity-dev/continuity/boundary"
	"github.com/continuity-dev/continuity/continuation"
	"github.com/continuity-dev/continuity/remote"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

type invokeParams struct {
	Namespace string          `json:"namespace"`
	Method    string          `json:"method"`
	Args      json.RawMessage `json:"args"`
}

func (s *Server) remoteInvoke(ctx context.Context, raw []byte) (any, error) {
	p, err := splitInvokeParams(raw)
	if err != nil {
		return nil, err
	}
	if len(p.Args) == 0 {
		p.Args = json.RawMessage("{}")
	}
	svc := s.svc()
	switch p.Namespace {
	case "githubCopilotSessionContinuation":
		return svc.session.Invoke(ctx, p.Method, p.Args), nil
	case "continuity":
		return svc.continuityRemote(ctx, p.Method, p.Args), nil
	}
	return remote.Fail(remote.MethodNotFound, "no Remote "+p.Namespace+"/"+p.Method), nil
}

// validArgs checks Remote args against remote/<ns>/<method>.args.
func validArgs(ns, method string, args json.RawMessage) (remote.Envelope, bool) {
	if err := uicontract.Validate("remote/"+ns+"/"+method+".args", args); err != nil {
		return remote.Fail(remote.ArgumentsInvalid, ns+"/"+method+": "+err.Error()), false
	}
	return remote.Envelope{}, true
}

// continuityRemote serves the continuity namespace: account switch and
// notices (turns), lineage/handoff/manifest (continuation) and boundary.
func (svc *services) continuityRemote(ctx context.Context, method string, args json.RawMessage) remote.Envelope {
	switch method {
	case "accountSwitch", "notices":
	case continuation.RemoteLineage, continuation.RemoteHandoff, continuation.RemoteManifest:
		return envelopeOf(svc.cont.Remote(ctx, method, args))
	case boundary.MethodBoundary:
		return envelopeOf(svc.boundary.Remote(ctx, method, args))
	default:
		return remote.Fail(remote.MethodNotFound, "no Remote continuity/"+method)
	}
	if e, ok := validArgs("continuity", method, args); !ok {
		return e
	}
	var a struct {
		AgentID   string `json:"agentId"`
		AccountID string `json:"accountId"`
	}
	_ = json.Unmarshal(args, &a)
	switch method {
	case "accountSwitch":
		return envelopeOf(svc.turns.AccountSwitch(ctx, a.AgentID, a.AccountID))
	default:
		return remote.Success(svc.turns.Notices(a.AgentID))
	}
}

// envelopeOf is a Remote method's answer as a DSH envelope.
func envelopeOf(v any, err error) remote.Envelope {
	if err != nil {
		return remote.Failure(err)
	}
	return remote.Success(v)
}

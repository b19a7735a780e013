package plugin

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/continuity-dev/continuity/boundary"
	"github.com/continuity-dev/continuity/continuation"
	"github.com/continuity-dev/continuity/diag"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// envelope is the DSH Remote result: {ok: true, value} or
// {ok: false, error: {code, message, details}}. A failed Remote call is a
// result, not a JSON-RPC error.
type envelope struct {
	OK    bool           `json:"ok"`
	Value any            `json:"value,omitempty"`
	Error *envelopeError `json:"error,omitempty"`
}

type envelopeError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

func okEnvelope(v any) envelope { return envelope{OK: true, Value: v} }

func failEnvelope(code, msg string) envelope {
	return envelope{Error: &envelopeError{Code: code, Message: msg, Details: map[string]any{}}}
}

// errEnvelope maps a failure to an envelope: diagnostics keep their code,
// host lookup codes pass through, anything else is internal.
func errEnvelope(err error) envelope {
	var d *diag.Error
	if errors.As(err, &d) {
		return failEnvelope(d.Code, d.Error())
	}
	return failEnvelope("internal", "internal error")
}

type invokeParams struct {
	Namespace string          `json:"namespace"`
	Method    string          `json:"method"`
	Args      json.RawMessage `json:"args"`
}

func (s *Server) remoteInvoke(ctx context.Context, raw []byte) (any, error) {
	var p invokeParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams("remote/invoke: " + err.Error())
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
	return failEnvelope("method-not-found", "no Remote "+p.Namespace+"/"+p.Method), nil
}

// validArgs checks Remote args against remote/<ns>/<method>.args.
func validArgs(ns, method string, args json.RawMessage) (envelope, bool) {
	if err := uicontract.Validate("remote/"+ns+"/"+method+".args", args); err != nil {
		return failEnvelope("arguments-invalid", ns+"/"+method+": "+err.Error()), false
	}
	return envelope{}, true
}

// continuityRemote serves the continuity namespace: account switch and
// notices (turns), lineage/handoff/manifest (continuation) and boundary.
func (svc *services) continuityRemote(ctx context.Context, method string, args json.RawMessage) envelope {
	switch method {
	case "accountSwitch", "notices":
	case continuation.RemoteLineage, continuation.RemoteHandoff, continuation.RemoteManifest:
		v, err := svc.cont.Remote(ctx, method, args)
		if err != nil {
			e := continuation.EnvelopeError(err)
			return envelope{Error: &envelopeError{Code: e.Code, Message: e.Message, Details: e.Details}}
		}
		return okEnvelope(v)
	case boundary.MethodBoundary:
		v, err := svc.boundary.Remote(ctx, method, args)
		if err != nil {
			return errEnvelope(err)
		}
		return okEnvelope(v)
	default:
		return failEnvelope("method-not-found", "no Remote continuity/"+method)
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
		v, err := svc.turns.AccountSwitch(ctx, a.AgentID, a.AccountID)
		if err != nil {
			return errEnvelope(err)
		}
		return okEnvelope(v)
	default:
		return okEnvelope(svc.turns.Notices(a.AgentID))
	}
}

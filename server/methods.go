package server

import (
	"context"

	"github.com/tidwall/gjson"

	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// methodTable lists every method the plugin serves (docs/protocol.md §3–§4).
// Anything else is -32601; a listed method is checked before it runs.
func (s *Server) methodTable() map[string]method {
	return map[string]method{
		"initialize": {check: schema("wire/initialize.params"), call: s.initialize, early: true, opens: true},
		"shutdown": {check: optionalObject, early: true,
			call:       func(context.Context, []byte) (any, error) { return struct{}{}, nil },
			afterReply: s.requestShutdown},
		"$/cancelRequest":   {check: schema("wire/cancelRequest.params"), notify: s.disp.cancelRequest, early: true},
		"session/event":     {check: requireParams, notify: s.sessionEvent},
		"session.event":     {check: requireParams, notify: s.sessionEvent},
		"agent/disposed":    {check: schema("wire/agent/disposed.params"), notify: s.agentDisposed},
		"llm/response":      {check: schema("wire/llm/response.params"), notify: s.llmResponse},
		"agent/request":     {check: schema("wire/agent/request.params"), call: s.agentRequest, onCancel: s.requestCancelled},
		"llm/payload":       {check: checkPayloadParams, borrow: s.llmPayload, onCancel: s.requestCancelled},
		"llm/payloadDigest": {check: checkPayloadParams, call: s.llmPayloadDigest, onCancel: s.requestCancelled, inline: true},
		"remote/invoke":     {check: checkInvokeParams, call: s.remoteInvoke},
		"tool/call":         {check: schema("wire/tool/call.params"), call: s.toolCall},
	}
}

// schema returns a check that validates params against a ui-contract schema.
func schema(name string) func([]byte) error {
	return func(params []byte) error {
		if params == nil {
			return invalidParams("params are required")
		}
		if err := uicontract.Validate(name, params); err != nil {
			return invalidParams(err.Error())
		}
		return nil
	}
}

// requireParams is the check of the session event notifications: their
// envelope is read where they are applied (readSessionEvent), so that a
// large event is scanned once and never decoded on the read loop.
func requireParams(params []byte) error {
	if params == nil {
		return invalidParams("params are required")
	}
	return nil
}

// optionalObject accepts absent params or an object.
func optionalObject(params []byte) error {
	if params == nil {
		return nil
	}
	if !gjson.ValidBytes(params) || gjson.ParseBytes(params).Type != gjson.JSON || params[0] != '{' {
		return invalidParams("params must be an object")
	}
	return nil
}

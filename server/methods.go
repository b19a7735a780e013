package server

import (
	"context"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/jsonscan"
	"github.com/continuity-dev/continuity/turns"
	"github.com/continuity-dev/continuity/wire"
)

// methodTable lists every method the plugin serves (docs/protocol.md §3–§4).
// Anything else is -32601; a listed method's params are read by its entry
// before it runs (method.go).
func (s *Server) methodTable() map[string]method {
	return map[string]method{
		"initialize":        typedRequest("wire/initialize.params", s.initialize).entry(early | opens),
		"shutdown":          request(optionalObject, shutdownResult).afterReply(s.requestShutdown).entry(early),
		"$/cancelRequest":   notice(readCancelParams, s.disp.cancelRequest).entry(early),
		"session/event":     notice(readSessionEventParams, s.sessionEvent).entry(borrows),
		"session.event":     notice(readSessionEventParams, s.sessionEvent).entry(borrows),
		"agent/disposed":    notice(schema[agentDisposedParams]("wire/agent/disposed.params"), s.agentDisposed).entry(0),
		"llm/response":      notice(schema[llmResponseParams]("wire/llm/response.params"), s.llmResponse).entry(0),
		"agent/request":     request(readAgentRequest, s.agentRequest).onCancel(s.agentRequestCancelled).entry(0),
		"llm/payload":       request(readPayloadParams, s.llmPayload).deferred(isObject).onCancel(s.payloadCancelled).entry(borrows),
		"llm/payloadDigest": request(readDigestEntry, s.llmPayloadDigest).deferred(isObject).onCancel(s.digestCancelled).entry(inline),
		"remote/invoke":     request(readInvokeParams, s.remoteInvoke).entry(0),
		"tool/call":         typedRequest("wire/tool/call.params", s.toolCall).entry(0),
	}
}

// optionalObject reads shutdown's params: absent, or an object.
func optionalObject(params *wire.Params) (struct{}, error) {
	raw := params.Bytes()
	if raw == nil {
		return struct{}{}, nil
	}
	if !gjson.ValidBytes(raw) || gjson.ParseBytes(raw).Type != gjson.JSON || raw[0] != '{' {
		return struct{}{}, invalidParams("params must be an object")
	}
	return struct{}{}, nil
}

// shutdownResult answers shutdown; the exit follows its reply (afterReply).
func shutdownResult(context.Context, struct{}) (any, error) { return struct{}{}, nil }

// readCancelParams reads the id of $/cancelRequest params once they hold
// to their schema (so the id is present, and once).
func readCancelParams(params *wire.Params) (wire.ID, error) {
	raw := params.Bytes()
	if err := validParams("wire/cancelRequest.params", raw); err != nil {
		return wire.ID{}, err
	}
	sc := jsonscan.Scanner{B: raw, Trusted: true}
	members, err := sc.Members(make([]jsonscan.Member, 0, 2))
	if err != nil {
		return wire.ID{}, invalidParams("params must be an object")
	}
	for _, m := range members {
		if sc.NameIs(m, "id") {
			id, err := wire.ParseID(m.Value(raw))
			if err != nil {
				return wire.ID{}, invalidParams("$/cancelRequest: /id: " + err.Error())
			}
			return id, nil
		}
	}
	return wire.ID{}, invalidParams("$/cancelRequest: /id is required")
}

// sessionEventParams is a session event as readSessionEvent read it, with
// a header that did not read, for the handler to log.
type sessionEventParams struct {
	ev        hostapi.SessionEvent
	headerErr error
}

// readSessionEventParams reads the envelope of session/event and
// session.event (readSessionEvent): a large event is scanned once and
// never decoded on the read loop. Its failure drops the event with
// readSessionEvent's reason logged as it is.
func readSessionEventParams(params *wire.Params) (sessionEventParams, error) {
	raw := params.Bytes()
	if raw == nil {
		return sessionEventParams{}, invalidParams("params are required")
	}
	ev, headerErr, err := readSessionEvent(raw, params.Long())
	if err != nil {
		return sessionEventParams{}, err
	}
	return sessionEventParams{ev: ev, headerErr: headerErr}, nil
}

// The notifications' params, as their schemas name them.
type (
	agentDisposedParams struct {
		SessionID string `json:"sessionId"`
	}
	llmResponseParams struct {
		RequestID string `json:"requestId"`
		Status    int    `json:"status"`
		ErrorBody string `json:"errorBody"`
	}
)

// agentRequestParams is agent/request decoded, with the host's config
// bytes, which go back unchanged.
type agentRequestParams struct {
	turns.AgentRequest
	config []byte
}

// readAgentRequest reads agent/request against its schema, by the fast
// reader (request_fast.go) when it can judge the params alone. The config
// is found in the validated params (which hold it once) and copied.
func readAgentRequest(params *wire.Params) (agentRequestParams, error) {
	if fastRequests {
		if p, ok := fastAgentRequest(params.Bytes()); ok {
			return p, nil
		}
	}
	req, err := schema[turns.AgentRequest]("wire/agent/request.params")(params)
	if err != nil {
		return agentRequestParams{}, err
	}
	return agentRequestParams{AgentRequest: req, config: []byte(gjson.Get(view(params.Bytes()), "config").Raw)}, nil
}

// fastRequests turns the fast reader of agent/request on; the
// differential test turns it off to read the same params the slow way.
var fastRequests = true

// agentRequestCancelled, payloadCancelled and digestCancelled revoke the
// turn of a request the host cancelled after it had been served: the host
// sends nothing, so nothing more of that turn may be filtered.
func (s *Server) agentRequestCancelled(p agentRequestParams) { s.requestCancelled(p.RequestID) }
func (s *Server) payloadCancelled(p payloadParams)           { s.requestCancelled(p.req.RequestID) }
func (s *Server) digestCancelled(p digestParams)             { s.requestCancelled(p.req.RequestID) }

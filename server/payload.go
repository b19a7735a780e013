package server

import (
	"context"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/turns"
	"github.com/continuity-dev/continuity/wire"
)

type omitted struct {
	Items       int `json:"items"`
	CodeUnits   int `json:"codeUnits"`
	StrippedIDs int `json:"strippedIds"`
}

// payloadParams is llm/payload's params as its entry read them: the
// envelope decoded, and the payload a view of the frame that the handler
// only borrows (the entry borrows: the frame is released once the reply
// is written).
type payloadParams struct {
	req     turns.PayloadRequest
	payload []byte
	frame   *wire.Params
}

// readPayloadParams reads llm/payload's params on the request's goroutine
// (the entry is deferred: the read loop only checks that they are an
// object), without decoding the payload (splitParams): the envelope is
// validated and decoded like any other params, and the payload stays the
// host's original bytes.
func readPayloadParams(params *wire.Params) (payloadParams, error) {
	req, payload, err := splitParams[turns.PayloadRequest](params,
		largeMember{method: "llm/payload", schema: "wire/llm/payload.params", name: "payload", anyValue: true})
	if err != nil {
		return payloadParams{}, err
	}
	// A payload that is JSON but not an object is the body's fault, not
	// the envelope's: it is INVALID_PAYLOAD, as the DSH Copilot plugin's
	// filter answers, once the envelope is valid.
	if payload[0] != '{' {
		return payloadParams{}, diag.New(diag.InvalidPayload, "payload must be a JSON object (an OpenAI Responses request body)")
	}
	if req.Purpose == "" {
		// DSH leaves GenerateOptions.purpose unset for a chat call.
		req.Purpose = "chat"
	}
	return payloadParams{req: req, payload: payload, frame: params}, nil
}

// llmPayload borrows its params: a filtered result is written straight
// from the slices of the payload that it keeps (a wire.RawResult), and the
// retry record that still borrows them takes its copy before the
// dispatcher releases the frame (BeforeRelease).
//
// Boundary work waits while the payload is answered (holdForPayload):
// the hold ends when the frame is released, after the reply.
func (s *Server) llmPayload(ctx context.Context, p payloadParams) (any, error) {
	svc := s.svc()
	if svc.decider != nil && p.frame != nil {
		p.frame.BeforeRelease(svc.decider.holdForPayload())
	}
	res, err := svc.turns.Payload(ctx, p.req, p.payload)
	if err != nil {
		return nil, err
	}
	p.frame.BeforeRelease(res.Detach)
	out := wire.Object().Set("outcome", res.Outcome)
	if res.Output != nil {
		out.Raw("payload", res.Output...)
	}
	return out.Set("omitted", omitted{Items: res.Omitted.Items, CodeUnits: res.Omitted.CodeUnits, StrippedIDs: res.Omitted.StrippedIDs}).
		Set("sha256", res.Hex()).Result()
}

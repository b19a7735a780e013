package server

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/jsonscan"
	"github.com/continuity-dev/continuity/turns"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
	"github.com/continuity-dev/continuity/wire"
)

type omitted struct {
	Items       int `json:"items"`
	CodeUnits   int `json:"codeUnits"`
	StrippedIDs int `json:"strippedIds"`
}

// checkPayloadParams is llm/payload's check in the read loop: only the
// cheap shape test, so a 64 MiB frame does not hold up later messages; the
// handler validates the envelope (splitPayloadParams) before any work and
// answers -32602 the same way.
func checkPayloadParams(raw []byte) error {
	if len(raw) == 0 || raw[0] != '{' {
		return invalidParams("params must be an object")
	}
	return nil
}

// splitPayloadParams validates llm/payload's envelope against its schema
// without decoding the payload: one trusted pass over the params members
// (the wire validated the frame) locates the payload by offset, and the
// envelope is the params with the payload's value replaced by {} — a few
// hundred bytes that are validated and decoded like any other params. It
// returns the envelope and the payload's original bytes.
func splitPayloadParams(raw []byte) (turns.PayloadRequest, []byte, error) {
	var req turns.PayloadRequest
	if raw == nil {
		return req, nil, invalidParams("params are required")
	}
	sc := jsonscan.Scanner{B: raw, Trusted: true}
	members, err := sc.Members(make([]jsonscan.Member, 0, 12))
	if err != nil {
		return req, nil, invalidParams("params must be an object")
	}
	names := make([]string, 0, len(members))
	envelope := make([]byte, 0, 256)
	envelope = append(envelope, '{')
	var payload []byte
	notObject := false
	for k, m := range members {
		name, ok := sc.Decoded(raw[m.KeyStart+1 : m.KeyEnd-1])
		if !ok {
			return req, nil, invalidParams("llm/payload: a member name cannot be read")
		}
		if slices.Contains(names, string(name)) {
			return req, nil, invalidParams("llm/payload: " + strconv.Quote(string(name)) + " appears more than once")
		}
		names = append(names, string(name))
		if k > 0 {
			envelope = append(envelope, ',')
		}
		if v := m.Value(raw); string(name) == "payload" {
			// A payload that is JSON but not an object is the body's
			// fault, not the envelope's: it is INVALID_PAYLOAD, as the DSH
			// Copilot plugin's filter answers, once the envelope is valid.
			if v[0] == '{' {
				payload = v
			} else {
				notObject = true
			}
			envelope = append(append(envelope, raw[m.KeyStart:m.KeyEnd]...), `:{}`...)
			continue
		}
		envelope = append(envelope, raw[m.KeyStart:m.ValEnd]...)
	}
	envelope = append(envelope, '}')
	if err := uicontract.Validate("wire/llm/payload.params", envelope); err != nil {
		return req, nil, invalidParams(err.Error())
	}
	if err := json.Unmarshal(envelope, &req); err != nil {
		return req, nil, invalidParams("llm/payload: " + wire.DecodeError(err))
	}
	if notObject {
		return req, nil, diag.New(diag.InvalidPayload, "payload must be a JSON object (an OpenAI Responses request body)")
	}
	if req.Purpose == "" {
		// DSH leaves GenerateOptions.purpose unset for a chat call.
		req.Purpose = "chat"
	}
	return req, payload, nil
}

// llmPayload borrows its params: a filtered result is written straight
// from the slices of the payload that it keeps (a wire.RawResult), and the
// retry record that still borrows them takes its copy before the
// dispatcher releases the frame (BeforeRelease).
func (s *Server) llmPayload(ctx context.Context, params *wire.Params) (any, error) {
	req, payload, err := splitPayloadParams(params.Bytes())
	if err != nil {
		return nil, err
	}
	res, err := s.svc().turns.Payload(ctx, req, payload)
	if err != nil {
		return nil, err
	}
	params.BeforeRelease(res.Detach)
	out := wire.Object().Set("outcome", res.Outcome)
	if res.Output != nil {
		out.Raw("payload", res.Output...)
	}
	return out.Set("omitted", omitted{Items: res.Omitted.Items, CodeUnits: res.Omitted.CodeUnits, StrippedIDs: res.Omitted.StrippedIDs}).
		Set("sha256", res.Hex()).Result()
}

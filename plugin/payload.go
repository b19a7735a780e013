package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/continuity-dev/continuity/jsonscan"
	"github.com/continuity-dev/continuity/turns"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
	"github.com/continuity-dev/continuity/wire"
)

// payloadResult is the llm/payload result. Payload is spliced into the
// frame verbatim (no re-encoding) when the outcome is filtered.
type payloadResult struct {
	Outcome string    `json:"outcome"`
	Payload *wire.Raw `json:"payload,omitempty"`
	Omitted omitted   `json:"omitted"`
	SHA256  string    `json:"sha256"`
}

type omitted struct {
	Items       int `json:"items"`
	CodeUnits   int `json:"codeUnits"`
	StrippedIDs int `json:"strippedIds"`
}

// Release forgets the raw payload when the reply is replaced by an error.
func (r payloadResult) Release() {
	if r.Payload != nil {
		r.Payload.Release()
	}
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
// (the wire validated the frame) decodes every other member (they are small)
// and locates the payload by offset. It returns the envelope and the
// payload's original bytes.
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
	envelope := map[string]any{}
	var payload []byte
	for _, m := range members {
		name, ok := sc.Decoded(raw[m.KeyStart+1 : m.KeyEnd-1])
		if !ok {
			return req, nil, invalidParams("llm/payload: a member name cannot be read")
		}
		key := string(name)
		if _, dup := envelope[key]; dup {
			return req, nil, invalidParams("llm/payload: " + strconv.Quote(key) + " appears more than once")
		}
		v := m.Value(raw)
		if key == "payload" {
			envelope[key] = nil
			if v[0] == '{' {
				envelope[key] = map[string]any{}
				payload = v
			}
			continue
		}
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		var x any
		if err := d.Decode(&x); err != nil {
			return req, nil, invalidParams("llm/payload: " + err.Error())
		}
		envelope[key] = x
	}
	if err := uicontract.ValidateValue("wire/llm/payload.params", envelope); err != nil {
		return req, nil, invalidParams(err.Error())
	}
	b, _ := json.Marshal(envelope)
	if err := json.Unmarshal(b, &req); err != nil {
		return req, nil, invalidParams("llm/payload: " + err.Error())
	}
	return req, payload, nil
}

func (s *Server) llmPayload(ctx context.Context, raw []byte) (any, error) {
	req, payload, err := splitPayloadParams(raw)
	if err != nil {
		return nil, err
	}
	res, err := s.svc().turns.Payload(ctx, req, payload)
	if err != nil {
		return nil, err
	}
	out := payloadResult{Outcome: res.Outcome, SHA256: res.Hex(),
		Omitted: omitted{Items: res.Omitted.Items, CodeUnits: res.Omitted.CodeUnits, StrippedIDs: res.Omitted.StrippedIDs}}
	if res.Output != nil {
		out.Payload = s.stream.Raw(res.Output)
	}
	return out, nil
}

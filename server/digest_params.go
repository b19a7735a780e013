package server

import (
	"encoding/hex"
	"encoding/json"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/turns"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
	"github.com/continuity-dev/continuity/wire"
)

// digestParamsSchema is the contract llm/payloadDigest's params are held to.
const digestParamsSchema = "wire/llm/payloadDigest.params"

// digestParams is llm/payloadDigest's params as its entry read them.
type digestParams struct {
	req   turns.PayloadRequest
	items []filter.DigestItem
}

// readDigestEntry is llm/payloadDigest's reader. The entry is deferred: a
// list too large to answer inline is read on its own goroutine, not in
// the read loop.
func readDigestEntry(params *wire.Params) (digestParams, error) {
	req, items, err := readDigestParams(params.Bytes())
	return digestParams{req: req, items: items}, err
}

// readDigestParams reads llm/payloadDigest's params as sent, held exactly
// to their schema: an unknown member, at the top or in an item, is
// refused with -32602 like any other invalid params.
//
// The schema is not walked for every request: a bridge sends a few dozen
// bytes for each of up to 65,536 items on the path of every model call,
// and decoding them into values for the validator costs several times the
// filter's whole decision. Params in the canonical form a bridge writes
// (readCanonical: plain ASCII strings without escapes, plain integers,
// known members once each) are valid under the schema by construction and
// are read in one pass. Anything else goes through the schema, which
// either names what is wrong or accepts an unusual spelling (an escaped
// member name, units written 1.4e4) that is then decoded the slow way.
func readDigestParams(raw []byte) (turns.PayloadRequest, []filter.DigestItem, error) {
	if raw == nil {
		return turns.PayloadRequest{}, nil, invalidParams("params are required")
	}
	if req, items, ok := readCanonical(raw); ok {
		return req, items, nil
	}
	if err := uicontract.Validate(digestParamsSchema, raw); err != nil {
		return turns.PayloadRequest{}, nil, invalidParams("llm/payloadDigest: " + err.Error())
	}
	req, items, err := decodeDigestParams(raw)
	if err != nil {
		return turns.PayloadRequest{}, nil, invalidParams("llm/payloadDigest: " + wire.DecodeError(err))
	}
	return req, items, nil
}

// decodeDigestParams decodes params the schema has accepted. Numbers are
// read as float64: the schema's integers may be written 1.0 or 1e3, and
// its bounds (2^53 for turn and step, 2^40 for units) keep them exact.
func decodeDigestParams(raw []byte) (turns.PayloadRequest, []filter.DigestItem, error) {
	var p struct {
		RequestID string  `json:"requestId"`
		SessionID string  `json:"sessionId"`
		Turn      float64 `json:"turn"`
		Step      float64 `json:"step"`
		Provider  string  `json:"provider"`
		Model     string  `json:"model"`
		Purpose   string  `json:"purpose"`
		Items     []struct {
			Type   string  `json:"type"`
			ID     bool    `json:"id"`
			SHA256 string  `json:"sha256"`
			Units  float64 `json:"units"`
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return turns.PayloadRequest{}, nil, err
	}
	req := turns.PayloadRequest{RequestID: p.RequestID, SessionID: p.SessionID, Turn: int64(p.Turn), Step: int64(p.Step),
		Provider: p.Provider, Model: p.Model, Purpose: p.Purpose}
	if req.Purpose == "" {
		req.Purpose = "chat"
	}
	items := make([]filter.DigestItem, len(p.Items))
	for i, it := range p.Items {
		items[i] = filter.DigestItem{Type: it.Type, HasID: it.ID, Units: int(it.Units)}
		if it.SHA256 != "" {
			var sum [32]byte
			if _, err := hex.Decode(sum[:], []byte(it.SHA256)); err != nil {
				return turns.PayloadRequest{}, nil, err
			}
			items[i].SHA256 = &sum
		}
	}
	return req, items, nil
}

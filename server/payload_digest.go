package server

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/turns"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
	"github.com/continuity-dev/continuity/wire"
)

// payloadDigestParams is llm/payloadDigest: llm/payload's envelope with the
// items described instead of the body (docs/protocol.md §14.1).
type payloadDigestParams struct {
	turns.PayloadRequest
	Items []struct {
		Type   string `json:"type"`
		ID     bool   `json:"id"`
		SHA256 string `json:"sha256"`
		Units  int    `json:"units"`
	} `json:"items"`
}

// payloadDigestResult's lists are interfaces so that a filtered result
// carries both, even an empty one, and other outcomes carry neither.
type payloadDigestResult struct {
	Outcome string  `json:"outcome"`
	Omit    any     `json:"omit,omitempty"`
	Strip   any     `json:"strip,omitempty"`
	Omitted omitted `json:"omitted"`
}

// llmPayloadDigest serves the digest form. Its params are a few dozen
// bytes per item, up to 65,536 items: the envelope is checked against its
// schema with the items left out (as llm/payload's is, without its body),
// and the items are checked member by member while they are converted, so
// a long list costs one decode and no schema walk.
func (s *Server) llmPayloadDigest(ctx context.Context, raw []byte) (any, error) {
	var p payloadDigestParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams("llm/payloadDigest: " + wire.DecodeError(err))
	}
	if p.Purpose == "" {
		p.Purpose = "chat"
	}
	envelope, err := json.Marshal(struct {
		turns.PayloadRequest
		Items []struct{} `json:"items"`
	}{PayloadRequest: p.PayloadRequest, Items: []struct{}{}})
	if err != nil {
		return nil, err
	}
	if err := uicontract.Validate("wire/llm/payloadDigest.params", envelope); err != nil {
		return nil, invalidParams("llm/payloadDigest: " + err.Error())
	}
	if p.Items == nil {
		return nil, invalidParams("llm/payloadDigest: items is required")
	}
	items := make([]filter.DigestItem, len(p.Items))
	for i, it := range p.Items {
		items[i] = filter.DigestItem{Type: it.Type, HasID: it.ID, Units: it.Units}
		if len(it.Type) > 256 || it.Units < 0 {
			return nil, invalidParams("llm/payloadDigest: items: type longer than 256 bytes or negative units")
		}
		if it.SHA256 != "" {
			var sum [32]byte
			if len(it.SHA256) != 64 || strings.ToLower(it.SHA256) != it.SHA256 {
				return nil, invalidParams("llm/payloadDigest: items: sha256 is not 64 lowercase hex digits")
			}
			if _, err := hex.Decode(sum[:], []byte(it.SHA256)); err != nil {
				return nil, invalidParams("llm/payloadDigest: items: sha256 is not 64 lowercase hex digits")
			}
			items[i].SHA256 = &sum
		}
	}
	res, err := s.svc().turns.PayloadDigest(ctx, p.PayloadRequest, items)
	if err != nil {
		return nil, err
	}
	out := payloadDigestResult{Outcome: res.Outcome,
		Omitted: omitted{Items: res.Omitted.Items, CodeUnits: res.Omitted.CodeUnits, StrippedIDs: res.Omitted.StrippedIDs}}
	if res.Outcome == turns.OutcomeFiltered {
		out.Omit, out.Strip = append([]int{}, res.Omit...), append([]int{}, res.Strip...)
	}
	return out, nil
}

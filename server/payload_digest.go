package server

import (
	"context"

	"github.com/continuity-dev/continuity/turns"
)

// payloadDigestResult's lists are interfaces so that a filtered result
// carries both, even an empty one, and other outcomes carry neither.
type payloadDigestResult struct {
	Outcome string  `json:"outcome"`
	Omit    any     `json:"omit,omitempty"`
	Strip   any     `json:"strip,omitempty"`
	Omitted omitted `json:"omitted"`
}

// llmPayloadDigest serves the digest form (docs/protocol.md §14.1) with
// the params its entry read strictly against their schema
// (readDigestEntry).
func (s *Server) llmPayloadDigest(ctx context.Context, p digestParams) (any, error) {
	res, err := s.svc().turns.PayloadDigest(ctx, p.req, p.items)
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

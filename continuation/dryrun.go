package continuation

import (
	"context"
	"fmt"
)

// DryRunResult is continue_session's structured result for dryRun: true —
// what the successor's first context would hold and what it would cost,
// with nothing created: no edge, manifest, successor or ended turn.
type DryRunResult struct {
	DryRun          bool           `json:"dryRun"`
	PredecessorID   string         `json:"predecessorId"`
	InitiatingEvent EventRef       `json:"initiatingEvent"`
	Included        []ManifestItem `json:"included"`
	Omitted         []ManifestItem `json:"omitted"`
	State           []StateItem    `json:"state"`
	Tokens          TokenCost      `json:"tokens"`
}

// dryRun validates and compiles the continuation exactly as the real call
// would (sources, transfer, unsettled effects, cycles, budget) and returns
// the manifest's lists and the budget estimate. prepare only reads, so the
// same arguments without dryRun still continue afterwards, and the turn
// goes on.
func (s *Service) dryRun(ctx context.Context, call ToolCall, args ContinueArgs, key, argsDigest string) (ToolResult, error) {
	in, err := s.prepare(ctx, call, args, key, argsDigest)
	if err != nil {
		return ToolResult{}, err
	}
	m := in.manifest
	r := DryRunResult{DryRun: true, PredecessorID: m.PredecessorID, InitiatingEvent: m.InitiatingEvent,
		Included: nonNil(m.Included), Omitted: nonNil(m.Omitted), State: nonNilState(m.State), Tokens: m.Tokens}
	over := ""
	if r.Tokens.OverBudget {
		over = " (over budget)"
	}
	return textResult(fmt.Sprintf("Dry run: the successor's first context would carry %d sources and %d state items, %d more linked but not loaded; about %d of %d tokens%s. Nothing was created.",
		len(r.Included), len(r.State), len(r.Omitted), r.Tokens.Used, r.Tokens.Budget, over), r), nil
}

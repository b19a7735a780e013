package turns

import (
	"context"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/filter"
)

// DigestResult is the outcome of the digest form of llm/payload: which
// items the bridge must omit and whose id member it must remove.
type DigestResult struct {
	Outcome string
	Omit    []int
	Strip   []int
	Omitted filter.Omitted
}

// PayloadDigest handles the digest form of llm/payload for a chat request:
// the same participation, admission and revocation rules as Payload, with
// the decision taken on the items' fingerprints. Compaction and exact
// retries need the bytes, so they are only served by Payload.
func (m *Manager) PayloadDigest(ctx context.Context, req PayloadRequest, items []filter.DescribedItem) (DigestResult, error) {
	native := DigestResult{Outcome: OutcomeNative}
	if !m.opt.Providers.takesPart(req.Provider) || req.Purpose != "chat" {
		return native, nil
	}
	a := m.bindPayload(req)
	if a == nil || !a.enabled {
		m.nativeNotice(req)
		return native, nil
	}
	if a.sessionID != req.SessionID || a.turn != req.Turn {
		a.revoke("the payload's session or turn does not match its admission")
	} else if a.model != req.Model {
		a.revoke("the model changed during the turn")
	}
	if err := a.revokedErr(); err != nil {
		return DigestResult{}, err
	}
	if req.Step > 1 && !a.filter.HasBaseline() {
		err := diag.Newf(diag.TurnBoundaryUnavailable,
			"step %d of turn %d has no first-step baseline (cold mid-turn recovery is not supported)", req.Step, req.Turn)
		m.diagnostic(a, req, err)
		return DigestResult{}, err
	}
	res, err := a.filter.ApplyDescribed(ctx, items, m.pollFor(a))
	if err != nil {
		if ctx.Err() != nil {
			a.revoke("the request was cancelled")
			return DigestResult{}, err
		}
		m.diagnostic(a, req, err)
		return DigestResult{}, err
	}
	out := DigestResult{Outcome: OutcomeUnchanged, Omit: res.Omit, Strip: res.Strip, Omitted: res.Omitted}
	if len(res.Omit) > 0 || len(res.Strip) > 0 {
		out.Outcome = OutcomeFiltered
	}
	m.filtered(a, req, PayloadResult{Outcome: out.Outcome, Omitted: res.Omitted})
	return out, nil
}

package remote

import (
	"context"

	"github.com/continuity-dev/continuity/diag"
)

// inheritAttempts bounds the CAS retries of Inherit against other writers.
const inheritAttempts = 3

// Inherit writes the successor's own row with the predecessor's effective
// policy (issue 28 #3). continuity creates a successor with isSeeded true,
// and seeded sessions resolve off under the creation-time default; but the
// successor's seed is continuity's projection, not foreign history, and a
// person who continued with visible-history continuation on and then
// switches account would otherwise meet the supplier's rejection again. A
// real change is announced like set's.
func (s *HistoryPolicy) Inherit(ctx context.Context, predecessorID, successorID string) (PolicyView, error) {
	pred, err := s.lookup(ctx, predecessorID)
	if err != nil {
		return PolicyView{}, err
	}
	want, err := s.policy.Resolve(ctx, predecessorID, pred.Header)
	if err != nil {
		return PolicyView{}, err
	}
	succ, err := s.lookup(ctx, successorID)
	if err != nil {
		// The host may not serve the new session yet: its header only
		// shapes the returned resolution, which its own row decides.
		succ.Header = nil
	}
	for attempt := 1; ; attempt++ {
		cur, err := s.policy.Resolve(ctx, successorID, succ.Header)
		if err != nil {
			return PolicyView{}, err
		}
		r, wrote, err := s.policy.Set(ctx, successorID, succ.Header, cur.Revision, &want.Enabled)
		if diag.CodeOf(err) == diag.Conflict && attempt < inheritAttempts {
			continue
		}
		if err != nil {
			return PolicyView{}, err
		}
		v := s.view(successorID, r)
		if wrote {
			s.announceView(ctx, successorID, v)
		}
		return v, nil
	}
}

package turns

import (
	"context"

	"github.com/continuity-dev/continuity/filter"
)

// PayloadFollowed is Payload for a payload that f followed while its
// frame arrived (filter.FollowPayload): the same effects in the same
// order — binding, revocation, retries, admission, the turn's decision,
// the baseline, the retry record — and the same result, with the filter's
// scan and fingerprinting taken from f instead of done again
// (filter.Turn.ApplyFollowed, which falls back to Apply for a payload f
// did not follow exactly). f may be nil; the caller closes it.
func (m *Manager) PayloadFollowed(ctx context.Context, req PayloadRequest, payload []byte, f *filter.Followed) (PayloadResult, error) {
	return m.payload(ctx, req, payload, f)
}

package boundary

import (
	"context"
)

// Decided serves continuity.boundary {agentId}: the session's latest
// decision record, once every boundary observed before the call has had
// its decision attempted (so a call made after turn/end returns that
// turn's record). A session without a decision is
// CONTINUITY_BOUNDARY_NOT_DECIDED. The plugin's method table has checked
// the arguments against remote/continuity/boundary.args.
func (s *Service) Decided(ctx context.Context, sessionID string) (Decision, error) {
	s.waitDecided(ctx, sessionID)
	d, ok, err := s.Latest(ctx, sessionID)
	if err != nil {
		return Decision{}, err
	}
	if !ok {
		return Decision{}, ErrNotDecided.With("agentId", sessionID)
	}
	return d, nil
}

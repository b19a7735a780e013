package plugin

import (
	"context"
	"encoding/json"

	"github.com/continuity-dev/continuity/continuation"
	"github.com/continuity-dev/continuity/remote"
	"github.com/continuity-dev/continuity/wire"
)

// projection serves continuity.projection {edgeId}: the successor context
// byte for byte as session/create carried it. A success is written as a
// wire.RawResult, so the stored bytes are not re-encoded; a failure is an
// ordinary Remote envelope.
func (s *Server) projection(ctx context.Context, args json.RawMessage) (any, error) {
	svc := s.svc()
	edgeID, err := continuation.ProjectionArgs(args)
	if err != nil {
		return remote.Failure(err), nil
	}
	b, err := svc.cont.Projection(ctx, edgeID)
	if err != nil {
		return remote.Failure(err), nil
	}
	return wire.Object().Set("ok", true).Raw("value", b).Result()
}

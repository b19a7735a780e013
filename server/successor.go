package server

import (
	"context"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// inheritPolicy gives a committed successor the predecessor's effective
// Session policy as its own row (docs/protocol.md §16.3). A failure is
// logged with its code and does not undo the continuation: the successor
// then resolves as a seeded session (off) until the person sets it.
func (svc *services) inheritPolicy(ctx context.Context, predecessorID, successorID string) {
	if _, err := svc.historyPolicy.Inherit(context.WithoutCancel(ctx), predecessorID, successorID); err != nil {
		svc.log.Warn("the successor did not inherit the session policy", zap.String("predecessor", predecessorID),
			zap.String("successor", successorID), zapCode(diag.CodeOf(err)), zap.Error(err))
	}
}

// runsCap is the host's session/run, when it declared capabilities.runs;
// nil leaves a successor to the person's next message (state manual).
func runsCap(caps hostCapabilities, h hostapi.Runs) hostapi.Runs {
	if caps.Runs {
		return h
	}
	return nil
}

// sourcesCap is the host's source/open, when it declared
// capabilities.sources; nil answers cited sources unavailable.
func sourcesCap(caps hostCapabilities, h hostapi.Sources) hostapi.Sources {
	if caps.Sources {
		return h
	}
	return nil
}

package proxy

import (
	"context"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
)

// casAttempts is how often a change is recomputed when another writer (the
// page, the command, another proxy on the same store) moved the revision
// between the read and the compare-and-swap.
const casAttempts = 5

// SetSession sets session's own policy (enabled nil removes its row, so the
// new-session default applies) under the store's compare-and-swap, retrying
// on a concurrent write. born is when the session was first seen (ms), the
// birth evidence the default is resolved with; 0 when unknown.
func SetSession(ctx context.Context, p *settings.Policy, session string, born int64, enabled *bool) error {
	var header *hostapi.SessionHeader
	if born > 0 {
		header = &hostapi.SessionHeader{CreatedAt: &born}
	}
	return retryCAS(ctx, p, func(rev int64) error {
		_, _, err := p.Set(ctx, session, header, rev, enabled)
		return err
	})
}

// SetDefault sets the new-session default under compare-and-swap.
func SetDefault(ctx context.Context, p *settings.Policy, enabled bool) error {
	return retryCAS(ctx, p, func(rev int64) error {
		_, _, err := p.SetDefault(ctx, rev, enabled)
		return err
	})
}

// retryCAS runs write at the current revision until it does not conflict.
func retryCAS(ctx context.Context, p *settings.Policy, write func(rev int64) error) error {
	var err error
	for range casAttempts {
		var d settings.Default
		if d, err = p.Defaults(ctx); err != nil {
			return err
		}
		if err = write(d.Revision); !conflicted(err) {
			return err
		}
	}
	return err
}

func conflicted(err error) bool { return diag.Has(err, diag.Conflict) }

package settings

import (
	"context"

	"github.com/continuity-dev/continuity/diag"
)

// activateAttempts bounds how often Activate re-reads after losing a CAS
// race to another writer of the namespace.
const activateAttempts = 5

// Activate records the creation-time policy epoch on first start: when the
// default history is empty it writes [{enabled: true, changedAt: now}] by
// CAS and reads it back, so sessions created afterwards default on. A
// history that is already there (an earlier activation, or a user's choice)
// is left alone. Any failure is INITIALIZATION_FAILED with the underlying
// code in data.cause; the caller must then refuse turn admission instead of
// guessing the policy.
func (p *Policy) Activate(ctx context.Context) error {
	var last error
	for range activateAttempts {
		st, err := p.read(ctx)
		if err != nil {
			return initFailed(err)
		}
		if len(st.history) > 0 {
			return nil
		}
		row, err := p.nextDefault(nil, true)
		if err != nil {
			return initFailed(err)
		}
		next := st
		next.history = []DefaultRow{row}
		if _, err = p.commit(ctx, st, KeyDefaults, next, row.in); err == nil {
			return nil
		}
		if !diag.Has(err, diag.Conflict) || ctx.Err() != nil {
			return initFailed(err)
		}
		last = err
	}
	return initFailed(last)
}

func initFailed(err error) error {
	return diag.Newf(diag.InitializationFailed, "continuation policy activation failed: %v", err).
		With("cause", diag.CodeOf(err))
}

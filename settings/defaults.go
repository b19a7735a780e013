package settings

import (
	"context"
	"slices"

	"github.com/continuity-dev/continuity/diag"
)

// Default is the new-session default as clients see it: the latest history
// row's state (off while the history is empty) at a namespace revision.
type Default struct {
	Enabled  bool  `json:"enabled"`
	Revision int64 `json:"revision"`
}

func (s state) current() Default {
	d := Default{Revision: s.revision}
	if n := len(s.history); n > 0 {
		d.Enabled = s.history[n-1].Enabled
	}
	return d
}

// Defaults reads the current new-session default.
func (p *Policy) Defaults(ctx context.Context) (Default, error) {
	st, err := p.read(ctx)
	if err != nil {
		return Default{}, err
	}
	return st.current(), nil
}

// SetDefault appends {enabled, changedAt} to the default history, so only
// sessions created after now are affected. changedAt is the clock, or one
// ms past the previous row when the clock has not moved past it. revision
// works as in Set. Repeating the current state writes nothing (the history
// keeps meaning the same without the row), except on an empty history,
// where the row also records that the user chose before activation did.
// A 2,049th row is SETTINGS_LIMIT.
func (p *Policy) SetDefault(ctx context.Context, revision int64, enabled bool) (d Default, wrote bool, err error) {
	st, err := p.read(ctx)
	if err != nil {
		return Default{}, false, err
	}
	if st.revision != revision {
		return Default{}, false, conflict(revision, st.revision)
	}
	n := len(st.history)
	if n > 0 && st.history[n-1].Enabled == enabled {
		return st.current(), false, nil
	}
	row, err := p.nextDefault(st.history, enabled)
	if err != nil {
		return Default{}, false, err
	}
	next := st
	next.history = append(st.history[:n:n], row)
	back, err := p.commit(ctx, st, KeyDefaults, next, row.in)
	if err != nil {
		return Default{}, false, err
	}
	return back.current(), true, nil
}

// in reports whether s's history holds d, so a write of d is still in
// effect after later writers appended to the history.
func (d DefaultRow) in(s state) bool { return slices.Contains(s.history, d) }

// nextDefault is the row to append: stamped now, or one ms after the last
// row when the clock stands still or runs backwards.
func (p *Policy) nextDefault(history []DefaultRow, enabled bool) (DefaultRow, error) {
	n := len(history)
	at := p.nowMs()
	if n > 0 {
		at = max(at, history[n-1].ChangedAt+1)
	}
	if n >= MaxHistory || at > maxTimestampMs {
		return DefaultRow{}, diag.Newf(diag.SettingsLimit, "settings %s.%s already holds %d rows", Namespace, KeyDefaults, n).
			With("limit", MaxHistory)
	}
	return DefaultRow{Enabled: enabled, ChangedAt: at}, nil
}

package settings

import (
	"context"
	"slices"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// Set changes sessionID's own row: enabled true or false writes an explicit
// row stamped now; nil removes the row so the creation-time default applies.
// revision is the namespace revision the client last saw; any other current
// revision is CONFLICT before anything is written, and the write itself is
// a CAS under it. Header is the session's birth evidence, used only for the
// returned Resolution, which is read back after the write.
//
// A request that would not change the stored row (removing a missing row,
// repeating an explicit state) writes nothing; wrote reports whether a
// write happened, so callers announce only real changes. A 2,049th row is
// SETTINGS_LIMIT; an id that cannot be stored (see ValidSessionID) is
// SETTINGS_LIMIT too, as it lies outside the row bounds.
func (p *Policy) Set(ctx context.Context, sessionID string, header *hostapi.SessionHeader, revision int64, enabled *bool) (r Resolution, wrote bool, err error) {
	if err := ValidSessionID(sessionID); err != nil {
		return Resolution{}, false, diag.Newf(diag.SettingsLimit, "session policy cannot be stored: %v", err)
	}
	st, err := p.read(ctx)
	if err != nil {
		return Resolution{}, false, err
	}
	if st.revision != revision {
		return Resolution{}, false, conflict(revision, st.revision)
	}
	i := rowIndex(st.rows, sessionID)
	next := st
	next.rows = slices.Clone(st.rows)
	var row Row // the row written; zero when the row is removed
	switch {
	case enabled == nil && i < 0:
		return st.resolve(sessionID, header), false, nil
	case enabled == nil:
		next.rows = slices.Delete(next.rows, i, i+1)
	case i >= 0 && st.rows[i].Enabled != nil && *st.rows[i].Enabled == *enabled:
		return st.resolve(sessionID, header), false, nil
	default:
		row = Row{SessionID: sessionID, Version: RowVersion, ConsentedAt: p.nowMs(), Enabled: new(*enabled)}
		if i >= 0 {
			next.rows[i] = row
		} else if len(next.rows) >= MaxRows {
			return Resolution{}, false, diag.Newf(diag.SettingsLimit, "settings %s.%s already holds %d rows", Namespace, KeySessions, MaxRows).
				With("limit", MaxRows)
		} else {
			next.rows = append(next.rows, row)
		}
	}
	kept := func(b state) bool {
		j := rowIndex(b.rows, sessionID)
		if enabled == nil {
			return j < 0
		}
		return j >= 0 && b.rows[j].equal(row)
	}
	back, err := p.commit(ctx, st, KeySessions, next, kept)
	if err != nil {
		return Resolution{}, false, err
	}
	return back.resolve(sessionID, header), true, nil
}

func rowIndex(rows []Row, sessionID string) int {
	return slices.IndexFunc(rows, func(r Row) bool { return r.SessionID == sessionID })
}

func (r Row) equal(o Row) bool {
	return r.SessionID == o.SessionID && r.Version == o.Version && r.ConsentedAt == o.ConsentedAt &&
		(r.Enabled == nil) == (o.Enabled == nil) && (r.Enabled == nil || *r.Enabled == *o.Enabled)
}

package continuation

import (
	"context"
	"database/sql"
)

// OmittedRecall is how often the successor recalled one source its
// manifest left out: Omitted is the index into the inspector's omitted
// list. A source recalled again and again should have been projected; the
// handoff inspector shows it as a projection-quality signal.
type OmittedRecall struct {
	Omitted int `json:"omitted"`
	Count   int `json:"count"`
}

// countOmittedRecall counts a successful session_recall of sessionID's
// events from–to against the nearest manifest on the caller's path that
// omitted a session_events source overlapping the range, once per such
// source. Only the caller's own predecessors' manifests count: a recall of
// a source that was projected is no signal.
func (s *Service) countOmittedRecall(ctx context.Context, manifests []string, sessionID string, from, to int64) error {
	for _, id := range manifests {
		m, _, err := loadManifest(ctx, s.db, id)
		if err != nil || m == nil {
			return err
		}
		var hits []int
		for i, it := range m.Omitted {
			if it.Kind != KindSessionEvents || it.SessionID != sessionID {
				continue
			}
			lo, hi := mustSeq(it.FromEventID), mustSeq(it.ToEventID)
			if it.EventID != "" {
				lo, hi = mustSeq(it.EventID), mustSeq(it.EventID)
			}
			if lo <= to && from <= hi {
				hits = append(hits, i)
			}
		}
		if len(hits) == 0 {
			continue
		}
		for _, i := range hits {
			if _, err := s.db.ExecContext(ctx, `INSERT INTO continuation_omitted_recalls(manifest_id, item, count) VALUES(?,?,1)
				ON CONFLICT(manifest_id, item) DO UPDATE SET count = count + 1`, id, i); err != nil {
				return storeErr("count recall", err)
			}
		}
		return nil
	}
	return nil
}

// omittedRecalls lists the counted recalls of a manifest's omitted sources.
func omittedRecalls(ctx context.Context, db *sql.DB, manifestID string) ([]OmittedRecall, error) {
	rows, err := db.QueryContext(ctx, `SELECT item, count FROM continuation_omitted_recalls WHERE manifest_id = ? ORDER BY item`, manifestID)
	if err != nil {
		return nil, storeErr("read recalls", err)
	}
	defer rows.Close()
	out := []OmittedRecall{}
	for rows.Next() {
		var r OmittedRecall
		if err := rows.Scan(&r.Omitted, &r.Count); err != nil {
			return nil, storeErr("read recalls", err)
		}
		out = append(out, r)
	}
	return out, storeErr("read recalls", rows.Err())
}

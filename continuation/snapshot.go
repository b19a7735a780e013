package continuation

import (
	"context"
	"strings"

	"github.com/continuity-dev/continuity/hostapi"
)

// storedEvent is an exact event as a manifest selected it.
type storedEvent struct {
	event      hostapi.Event
	digest     string
	manifestID string
}

// storedEvents returns, per seq of sessionID in [from, to], the version that
// the first of manifestIDs (nearest manifest first) selected.
func storedEvents(ctx context.Context, q querier, manifestIDs []string, sessionID string, from, to int64) (map[int64]storedEvent, error) {
	out := map[int64]storedEvent{}
	if len(manifestIDs) == 0 {
		return out, nil
	}
	rank := map[string]int{}
	args := []any{sessionID, from, to}
	for i, id := range manifestIDs {
		rank[id] = i
		args = append(args, id)
	}
	rows, err := q.QueryContext(ctx, `SELECT s.manifest_id, s.seq, s.digest, e.type, e.time, e.data
		FROM continuation_selected s JOIN continuation_events e
		  ON e.session_id = s.session_id AND e.seq = s.seq AND e.digest = s.digest
		WHERE s.session_id = ? AND s.seq BETWEEN ? AND ? AND s.manifest_id IN (?`+strings.Repeat(",?", len(manifestIDs)-1)+`)`, args...)
	if err != nil {
		return nil, storeErr("read events", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st storedEvent
		var tm, data []byte
		if err := rows.Scan(&st.manifestID, &st.event.Seq, &st.digest, &st.event.Type, &tm, &data); err != nil {
			return nil, storeErr("read events", err)
		}
		st.event.Time, st.event.Data = tm, data
		if prev, ok := out[st.event.Seq]; ok && rank[prev.manifestID] <= rank[st.manifestID] {
			continue
		}
		out[st.event.Seq] = st
	}
	return out, storeErr("read events", rows.Err())
}

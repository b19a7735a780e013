package continuation

import (
	"context"
	"encoding/json"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// maxSafeSeq is the largest seq asked of the host as "to the end": the
// largest integer a JavaScript host reads exactly.
const maxSafeSeq = 1<<53 - 1

// readEach streams the events with from ≤ seq ≤ to to fn in seq order. A
// host answer with complete=false is a page: reading resumes after its last
// event. It reports whether the host said the range was complete; a page
// that makes no progress ends the read as incomplete rather than looping.
func readEach(ctx context.Context, s hostapi.Sessions, sessionID string, from, to int64, fn func(hostapi.Event) error) (bool, error) {
	last := from - 1
	for {
		res, err := s.Read(ctx, sessionID, last+1, to)
		if err != nil {
			return false, err
		}
		progressed := false
		for _, ev := range res.Events {
			if ev.Seq <= last || ev.Seq > to {
				continue
			}
			if !validRaw(ev.Time) || !validRaw(ev.Data) {
				return false, diag.Newf(diag.SourceUnavailable, "session %s event %d is not valid JSON", sessionID, ev.Seq).
					With("sessionId", sessionID).With("eventId", eventID(ev.Seq))
			}
			if err := fn(ev); err != nil {
				return false, err
			}
			last, progressed = ev.Seq, true
		}
		if res.Complete || last >= to {
			return true, nil
		}
		if !progressed {
			return false, nil
		}
	}
}

// unavailable turns a host read failure into CONTINUITY_SOURCE_UNAVAILABLE,
// keeping the host's own code (for example session-not-found) as data.
func unavailable(sessionID string, err error) error {
	d := diag.Newf(diag.SourceUnavailable, "session %s cannot be read", sessionID).With("sessionId", sessionID)
	if c := diag.CodeOf(err); c != "" {
		d = d.With("hostCode", c)
	}
	return d
}

// readSource reads one cited session source whole. Both endpoints must
// exist: a breadcrumb that names an event the host no longer returns is
// unavailable, never silently shortened.
func readSource(ctx context.Context, s hostapi.Sessions, src Source, limit int) ([]hostapi.Event, error) {
	from, to := src.span()
	var out []hostapi.Event
	complete, err := readEach(ctx, s, src.SessionID, from, to, func(ev hostapi.Event) error {
		if len(out) == limit {
			return diag.Newf(diag.SourceLimit, "session %s range %d–%d holds more than %d events", src.SessionID, from, to, limit).
				With("sessionId", src.SessionID).With("limit", limit)
		}
		out = append(out, ev)
		return nil
	})
	if diag.Has(err, diag.SourceLimit) {
		return nil, err
	}
	if err != nil {
		return nil, unavailable(src.SessionID, err)
	}
	if !complete || len(out) == 0 || out[0].Seq != from || out[len(out)-1].Seq != to {
		return nil, diag.Newf(diag.SourceUnavailable, "session %s does not return events %d–%d", src.SessionID, from, to).
			With("sessionId", src.SessionID).With("fromEventId", eventID(from)).With("toEventId", eventID(to))
	}
	return out, nil
}

// validRaw reports whether an optional raw member is absent or valid JSON.
func validRaw(b json.RawMessage) bool { return len(b) == 0 || json.Valid(b) }

package continuation

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// RecallArgs is session_recall's argument object.
type RecallArgs struct {
	SessionID   string `json:"sessionId"`
	FromEventID string `json:"fromEventId,omitempty"`
	ToEventID   string `json:"toEventId,omitempty"`
	EventID     string `json:"eventId,omitempty"`
}

// RecallResult is session_recall's structured result. Events are exact;
// Unavailable lists breadcrumbs whose content cannot be given (revoked or
// missing at the host), which are never filled with other content.
type RecallResult struct {
	SessionID   string          `json:"sessionId"`
	FromEventID string          `json:"fromEventId"`
	ToEventID   string          `json:"toEventId"`
	Events      []RecalledEvent `json:"events"`
	Unavailable []Unavailable   `json:"unavailable"`
	Truncated   bool            `json:"truncated"`
	NextEventID string          `json:"nextEventId,omitempty"`
}

// RecalledEvent is one exact event. Version "manifest" is the content a
// manifest on the caller's lineage selected (stored at continuation time);
// Changed says the host now holds different content for it, which is not
// returned. Version "current" is the host's event as read now, for events
// no manifest selected.
type RecalledEvent struct {
	SectionEvent
	Digest     string `json:"digest"`
	Version    string `json:"version"`
	ManifestID string `json:"manifestId,omitempty"`
	Changed    bool   `json:"changed,omitempty"`
}

// Unavailable is a breadcrumb whose events cannot be returned.
type Unavailable struct {
	FromEventID string `json:"fromEventId"`
	ToEventID   string `json:"toEventId"`
	Code        string `json:"code"`
	HostCode    string `json:"hostCode,omitempty"`
}

var errRecallFull = errors.New("recall limit reached")

// recall runs session_recall for the caller.
func (s *Service) recall(ctx context.Context, call ToolCall) (ToolResult, error) {
	var a RecallArgs
	if err := decodeArgs("tool/session_recall.args", call.Arguments, &a); err != nil {
		return ToolResult{}, err
	}
	if a.EventID != "" {
		a.FromEventID, a.ToEventID = a.EventID, a.EventID
	}
	from, _ := parseEventID(a.FromEventID)
	to, _ := parseEventID(a.ToEventID)
	if from > to {
		return ToolResult{}, diag.New(diag.ContinuityArgumentsInvalid, "fromEventId is after toEventId")
	}
	manifests, err := s.authorizeRecall(ctx, call.SessionID, a.SessionID, from, to)
	if err != nil {
		return ToolResult{}, err
	}
	stored, err := storedEvents(ctx, s.db, manifests, a.SessionID, from, to)
	if err != nil {
		return ToolResult{}, err
	}
	res := RecallResult{SessionID: a.SessionID, FromEventID: a.FromEventID, ToEventID: a.ToEventID,
		Events: []RecalledEvent{}, Unavailable: []Unavailable{}}
	last := from - 1
	complete, err := readEach(ctx, s.sessions, a.SessionID, from, to, func(ev hostapi.Event) error {
		if len(res.Events) == s.opts.RecallMaxEvents {
			res.Truncated, res.NextEventID = true, eventID(ev.Seq)
			return errRecallFull
		}
		res.Events = append(res.Events, recalled(ev, stored))
		delete(stored, ev.Seq)
		last = ev.Seq
		return nil
	})
	switch {
	case errors.Is(err, errRecallFull):
		last, complete = to, true
		for seq := range stored {
			if seq >= mustSeq(res.NextEventID) {
				delete(stored, seq)
			}
		}
	case err != nil:
		// Revoked or unreadable: nothing of the range is given, not even
		// the stored version, and nothing newer stands in for it.
		u := Unavailable{FromEventID: a.FromEventID, ToEventID: a.ToEventID, Code: diag.SourceUnavailable, HostCode: diag.CodeOf(err)}
		res.Events, res.Unavailable = []RecalledEvent{}, []Unavailable{u}
		return recallResult(res), nil
	}
	if len(res.Events) > 0 {
		// A store that cannot count does not fail the recall: the signal
		// is for the inspector, the events are the caller's.
		_ = s.countOmittedRecall(ctx, manifests, a.SessionID, from, last)
	}
	if !complete && last < to {
		res.Unavailable = append(res.Unavailable, Unavailable{FromEventID: eventID(last + 1), ToEventID: a.ToEventID, Code: diag.SourceUnavailable})
		for seq := range stored {
			if seq > last {
				delete(stored, seq)
			}
		}
	}
	for seq := range stored { // selected by a manifest, no longer returned by the host
		res.Unavailable = append(res.Unavailable, Unavailable{FromEventID: eventID(seq), ToEventID: eventID(seq), Code: diag.SourceUnavailable})
	}
	return recallResult(res), nil
}

func mustSeq(id string) int64 { n, _ := parseEventID(id); return n }

// recalled answers one host event, preferring the manifest's version.
func recalled(ev hostapi.Event, stored map[int64]storedEvent) RecalledEvent {
	cur := eventDigest(ev)
	st, ok := stored[ev.Seq]
	if !ok {
		return RecalledEvent{SectionEvent: sectionEvents([]hostapi.Event{ev})[0], Digest: cur, Version: "current"}
	}
	return RecalledEvent{SectionEvent: sectionEvents([]hostapi.Event{st.event})[0], Digest: st.digest, Version: "manifest",
		ManifestID: st.manifestID, Changed: st.digest != cur}
}

func recallResult(res RecallResult) ToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "%d exact events of session %s (%s–%s)", len(res.Events), res.SessionID, res.FromEventID, res.ToEventID)
	if n := len(res.Unavailable); n > 0 {
		fmt.Fprintf(&b, "; %d breadcrumbs unavailable", n)
	}
	if res.Truncated {
		fmt.Fprintf(&b, "; truncated, continue from %s", res.NextEventID)
	}
	b.WriteString(".\n")
	b.Write(marshal(res))
	return textResult(b.String(), res)
}

// authorizeRecall allows sessions on the caller's lineage path, and ranges
// a manifest on that path cited from other sessions. It returns the path's
// manifest ids, nearest first, whose stored versions recall prefers.
func (s *Service) authorizeRecall(ctx context.Context, caller, sessionID string, from, to int64) ([]string, error) {
	path, err := ancestry(ctx, s.db, caller)
	if err != nil {
		return nil, storeErr("read lineage", err)
	}
	var ids []string
	allowed := sessionID == caller
	for i := len(path) - 1; i >= 0; i-- {
		ids = append(ids, path[i].ManifestID)
		allowed = allowed || path[i].PredecessorID == sessionID
	}
	if allowed {
		return ids, nil
	}
	for _, id := range ids {
		m, _, err := loadManifest(ctx, s.db, id)
		if err != nil {
			return nil, err
		}
		for _, it := range append(append([]ManifestItem{}, m.Included...), m.Omitted...) {
			if it.SessionID != sessionID {
				continue
			}
			lo, hi := mustSeq(it.FromEventID), mustSeq(it.ToEventID)
			if it.EventID != "" {
				lo, hi = mustSeq(it.EventID), mustSeq(it.EventID)
			}
			if lo <= from && to <= hi {
				return ids, nil
			}
		}
	}
	return nil, diag.Newf(diag.LineageForbidden, "session %s is not on the lineage of %s", sessionID, caller).
		With("sessionId", sessionID).With("caller", caller)
}

// Package hostapi is the plugin's view of its host: the shapes the host sends
// (session events and headers) and a small typed client for the calls the
// plugin makes back into the host (docs/protocol.md §6).
//
// Feature packages depend on the narrow interfaces here, never on the wire,
// so they can be tested with in-memory doubles and driven for real by the
// plugin process over JSON-RPC.
package hostapi

import (
	"encoding/json"

	"github.com/continuity-dev/continuity/jsonscan"
)

// SessionHeader is the host's birth evidence for a session.
// CreatedAt is milliseconds since the epoch; nil when the host did not say.
type SessionHeader struct {
	CreatedAt     *int64 `json:"createdAt,omitempty"`
	IsSeeded      bool   `json:"isSeeded"`
	ParentSession string `json:"parentSession,omitempty"`
	Origin        string `json:"origin,omitempty"`
}

// Event is one session event envelope {type, seq, time, data, surfaceOp?}
// as DSH emits it (docs/protocol.md §4.3): seq counts from 0 in every
// session. Time, Data and SurfaceOp are the host's bytes; each consumer
// reads only what it needs. In an event a session event notification
// delivers (Observe) they are borrowed from the frame, whose buffer
// carries a later frame once the event is applied: a consumer copies
// whatever it keeps (a string conversion, dshevent's Str and Excerpt)
// and never keeps the slices themselves. Events read from the host
// (session/read) are decoded copies and may be kept.
type Event struct {
	Type string          `json:"type"`
	Seq  int64           `json:"seq"`
	Time json.RawMessage `json:"time,omitempty"`
	Data json.RawMessage `json:"data,omitempty"`
	// SurfaceOp is "append" or {op:"replace", start, end} (format 0) or
	// {op:"replace", startSeq, endSeq} (format 4): the earlier events a
	// compaction checkpoint replaces.
	SurfaceOp json.RawMessage `json:"surfaceOp,omitempty"`
	// Long are the long strings of the frame Data was cut from (set for a
	// session event notification while it is applied): a reader's trusted
	// scan of Data given them steps over a large tool output in O(1).
	// They share the frame's lifetime: they are retired when its buffer
	// is released, and an event whose Data is copied must drop them.
	Long jsonscan.Spans `json:"-"`
}

// SessionEvent is the params of the session/event notification.
type SessionEvent struct {
	SessionID string         `json:"sessionId"`
	Event     Event          `json:"event"`
	Header    *SessionHeader `json:"header,omitempty"`
}

// Agent is the result of agents/get.
type Agent struct {
	SessionID string         `json:"sessionId"`
	Header    *SessionHeader `json:"header"`
	Status    string         `json:"status"`
}

// Op is one settings/mutate operation: {op: "set", path, value} or
// {op: "unset", path}.
type Op struct {
	Op    string          `json:"op"`
	Path  []string        `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

// Namespace is the result of settings/describe.
type Namespace struct {
	NS       string          `json:"ns"`
	Value    json.RawMessage `json:"value"`
	Revision int64           `json:"revision"`
}

// CreateSession is the params of session/create.
type CreateSession struct {
	IdempotencyKey string          `json:"idempotencyKey"`
	PredecessorID  string          `json:"predecessorId"`
	Title          string          `json:"title"`
	Header         *SessionHeader  `json:"header,omitempty"`
	Context        json.RawMessage `json:"context"`
}

// Created is the result of session/create.
type Created struct {
	SessionID string `json:"sessionId"`
	Created   bool   `json:"created"`
}

// Events is the result of session/read.
type Events struct {
	Events   []Event `json:"events"`
	Complete bool    `json:"complete"`
}

// UnmarshalJSON decodes a header of either DSH session format. isSeeded
// is read when present (format 4). DSH 0.1.x (format 0) has no isSeeded:
// there a seedLength means seeded, and a header that names its format
// (version) with neither is not seeded. A header that says nothing of
// either counts as seeded: a session whose birth evidence is incomplete
// never gets the creation-time default (docs/design.md §2.1).
func (h *SessionHeader) UnmarshalJSON(b []byte) error {
	type plain SessionHeader
	var p struct {
		plain
		IsSeeded   *bool           `json:"isSeeded"`
		SeedLength json.RawMessage `json:"seedLength"`
		Version    json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*h = SessionHeader(p.plain)
	switch {
	case p.IsSeeded != nil:
		h.IsSeeded = *p.IsSeeded
	case len(p.SeedLength) > 0 && string(p.SeedLength) != "null":
		h.IsSeeded = true
	default:
		h.IsSeeded = len(p.Version) == 0 || string(p.Version) == "null"
	}
	return nil
}

package server

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/internal/strictjson"
	"github.com/continuity-dev/continuity/jsonscan"
)

// readSessionEvent reads the envelope of a session event notification
// (session.event or session/event): sessionId, event.type and event.seq,
// and nothing else is checked. The wire has validated the frame, so a
// trusted scan only finds where values end (strings by a vectorised
// search for their closing quote): the params and the event are walked
// once each, and data, time and surfaceOp are slices of the host's bytes,
// never decoded. long are the long strings of the frame params was cut
// from (wire.Params.Long): both walks step over a 17 MiB tool/result's
// text in O(1) instead of searching it for its closing quote (about
// 1.5 ms each, while the requests behind the event wait). The params of a
// notification are never recycled, so the slices stay valid for as long
// as a feature keeps them.
//
// A header that does not read comes back as headerErr, for the caller to
// log; the event is applied without it.
func readSessionEvent(params []byte, long jsonscan.Spans) (ev hostapi.SessionEvent, headerErr error, err error) {
	top, err := members(params, long)
	if err != nil {
		return ev, nil, errors.New("params are not an object")
	}
	var event, header []byte
	for _, m := range top.ms {
		switch {
		case top.is(m, "sessionId"):
			ev.SessionID, _ = top.str(m)
		case top.is(m, "event"):
			event = m.Value(params)
		case top.is(m, "header"):
			header = m.Value(params)
		}
	}
	if ev.SessionID == "" {
		return ev, nil, errors.New("sessionId is not a non-empty string")
	}
	if !utf8.ValidString(ev.SessionID) {
		// Decoded exactly, a lone surrogate escape left the id invalid
		// UTF-8: every request refuses such an id, so no event applies
		// to one either (issue 18 #9).
		return ev, nil, errors.New("sessionId holds a lone surrogate escape")
	}
	fields, err := members(event, long)
	if err != nil {
		return ev, nil, errors.New("event is not an object")
	}
	// A member twice at either level has no one meaning: which copy is
	// read would decide the session or the seq (issue 18 #12). Deeper
	// members belong to the features that read them.
	if err := unique("", top); err != nil {
		return ev, nil, err
	}
	if err := unique("event.", fields); err != nil {
		return ev, nil, err
	}
	seq := []byte(nil)
	for _, m := range fields.ms {
		switch {
		case fields.is(m, "type"):
			ev.Event.Type, _ = fields.str(m)
		case fields.is(m, "seq"):
			seq = m.Value(event)
		case fields.is(m, "time"):
			ev.Event.Time = m.Value(event)
		case fields.is(m, "data"):
			ev.Event.Data = m.Value(event)
		case fields.is(m, "surfaceOp"):
			ev.Event.SurfaceOp = m.Value(event)
		}
	}
	if ev.Event.Type == "" {
		return ev, nil, errors.New("event.type is not a non-empty string")
	}
	n, ok := eventSeq(seq)
	if !ok {
		return ev, nil, errors.New("event.seq is not an integer from 0")
	}
	ev.Event.Seq = n
	ev.Event.Long = long
	if len(header) > 0 && string(header) != "null" {
		var h hostapi.SessionHeader
		if header[0] != '{' {
			return ev, errors.New("header is not an object"), nil
		}
		if e := json.Unmarshal(header, &h); e != nil {
			return ev, errors.New("header does not read: " + e.Error()), nil
		}
		ev.Header = &h
	}
	return ev, nil, nil
}

// unique refuses an object with a member name twice.
func unique(prefix string, o object) error {
	if name, dup := strictjson.Duplicate(o.sc, o.ms); dup {
		return errors.New(prefix + strconv.Quote(clip(name)) + " appears more than once")
	}
	return nil
}

// object is the members of one JSON object found by a trusted scan.
type object struct {
	sc *jsonscan.Scanner
	ms []jsonscan.Member
}

// members scans the object b (already validated by the wire; long are
// the long strings of its frame, if known).
func members(b []byte, long jsonscan.Spans) (object, error) {
	if len(b) == 0 || b[0] != '{' {
		return object{}, jsonscan.ErrNotObject{}
	}
	sc := &jsonscan.Scanner{B: b, Trusted: true, Long: long}
	ms, err := sc.Members(make([]jsonscan.Member, 0, 8))
	return object{sc: sc, ms: ms}, err
}

func (o object) is(m jsonscan.Member, name string) bool { return o.sc.NameIs(m, name) }

// str returns a member's string value, unescaped; ok is false for other
// values.
func (o object) str(m jsonscan.Member) (string, bool) {
	v := m.Value(o.sc.B)
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	d, ok := o.sc.Decoded(v[1 : len(v)-1])
	return string(d), ok
}

// eventSeq reads a seq: a JSON integer from 0 written without fraction or
// exponent (DSH's seq starts at 0 in every session).
func eventSeq(v []byte) (int64, bool) {
	if len(v) == 0 || v[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

package plugin

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/hostapi"
)

// readSessionEvent reads the envelope of a session event notification
// (session.event or session/event): sessionId, event.type and event.seq,
// and nothing else is checked. Data, time and surfaceOp are slices of the
// host's bytes, scanned for their bounds and never decoded, so a 17 MiB
// tool/result costs the read loop one scan. The params of a notification
// are never recycled, so the slices stay valid for as long as a feature
// keeps them.
//
// A header that does not read is logged by the caller and treated as
// absent; it never costs the event.
func readSessionEvent(params []byte) (ev hostapi.SessionEvent, headerErr error, err error) {
	if len(params) == 0 || params[0] != '{' {
		return ev, nil, errors.New("params are not an object")
	}
	var event, header gjson.Result
	gjson.Parse(view(params)).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "sessionId":
			if v.Type == gjson.String {
				ev.SessionID = v.Str
			}
		case "event":
			event = v
		case "header":
			header = v
		}
		return true
	})
	if ev.SessionID == "" {
		return ev, nil, errors.New("sessionId is not a non-empty string")
	}
	if !event.IsObject() {
		return ev, nil, errors.New("event is not an object")
	}
	var seq gjson.Result
	event.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			if v.Type == gjson.String {
				ev.Event.Type = v.Str
			}
		case "seq":
			seq = v
		case "time":
			ev.Event.Time = slice(params, v)
		case "data":
			ev.Event.Data = slice(params, v)
		case "surfaceOp":
			ev.Event.SurfaceOp = slice(params, v)
		}
		return true
	})
	if ev.Event.Type == "" {
		return ev, nil, errors.New("event.type is not a non-empty string")
	}
	n, ok := eventSeq(seq)
	if !ok {
		return ev, nil, errors.New("event.seq is not an integer from 0")
	}
	ev.Event.Seq = n
	if header.Exists() && header.Type != gjson.Null {
		var h hostapi.SessionHeader
		if !header.IsObject() {
			return ev, errors.New("header is not an object"), nil
		}
		if e := json.Unmarshal([]byte(header.Raw), &h); e != nil {
			return ev, errors.New("header does not read: " + e.Error()), nil
		}
		ev.Header = &h
	}
	return ev, nil, nil
}

// eventSeq reads a seq: a JSON integer from 0 written without fraction or
// exponent (DSH's seq starts at 0 in every session).
func eventSeq(v gjson.Result) (int64, bool) {
	if v.Type != gjson.Number || v.Raw == "" || v.Raw[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	return n, err == nil
}

// slice returns the bytes of v inside params (v was read from a view of
// params, so its Index is an offset into them): no copy.
func slice(params []byte, v gjson.Result) json.RawMessage {
	if v.Index <= 0 || v.Index+len(v.Raw) > len(params) {
		return json.RawMessage(v.Raw)
	}
	return params[v.Index : v.Index+len(v.Raw) : v.Index+len(v.Raw)]
}

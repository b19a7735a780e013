package wire

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/continuity-dev/continuity/jsonscan"
)

// frameError is a reply the Stream sends itself for a bad frame.
type frameError struct {
	ID    json.RawMessage
	Error *Error
}

// message is what skeleton learns of a valid frame.
type message struct {
	// skel is what the library decodes of a request: only its method and
	// whether it has an id (the id and params reach the handler as the
	// host's bytes, through takeRequest). A response never reaches the
	// library: the read loop delivers it to the call of ours it answers.
	skel    []byte
	request bool
	id      ID
	rawID   json.RawMessage
	// value is the request's params, or the awaited result; nil when
	// absent.
	value []byte
	// inner are value's members (offsets in value) when the frame was
	// validated while it arrived and value is an object; nil otherwise.
	inner []jsonscan.Member
	// errValue is an awaited response's error member.
	errValue []byte
	// answers is the call of ours this response is the first answer to
	// (nil for a request, or an answer nobody awaits).
	answers *call
	// response marks a frame that answers a call (awaited or not).
	response bool
}

// skeleton validates a frame and finds its members. Validation and
// locating the members are one pass of jsonscan over the frame — for a
// large frame, made while it arrived (see members) — so a 64 MiB payload
// is read once here, not once per question asked of it. line is the
// frame's line without the whitespace around it.
func (s *Stream) skeleton(fr frame, line []byte) (message, *frameError) {
	members, inner, trusted, err := members(fr, line)
	sc := jsonscan.Scanner{B: line, Trusted: trusted}
	switch {
	case errors.As(err, new(jsonscan.ErrNotObject)) && line[0] == '[':
		return message{}, &frameError{Error: &Error{Code: CodeInvalidRequest, Message: "batches are not supported"}}
	case errors.As(err, new(jsonscan.ErrNotObject)):
		return message{}, &frameError{Error: &Error{Code: CodeParseError, Message: "parse error: the line is not a JSON object"}}
	case err != nil:
		return message{}, &frameError{Error: &Error{Code: CodeParseError, Message: "parse error: the line is not JSON"}}
	}
	var f frameMembers
	dup := false
	for _, m := range members {
		dup = f.set(&sc, m) || dup
	}
	var m message
	if id := f.value(line, f.id); id != nil && (id[0] == '"' || id[0] == '-' || '0' <= id[0] && id[0] <= '9') {
		m.rawID = json.RawMessage(bytes.Clone(id)) // the frame may be gone when it is echoed
	}
	bad := func(msg string) *frameError {
		return &frameError{ID: m.rawID, Error: &Error{Code: CodeInvalidRequest, Message: msg}}
	}
	var idErr error
	if f.id != nil {
		m.id, idErr = ParseID(f.value(line, f.id))
	}
	switch {
	case dup:
		return m, bad("invalid request: a member appears twice")
	case f.jsonrpc == nil || !sc.StrIs(f.value(line, f.jsonrpc), "2.0"):
		return m, bad(`invalid request: "jsonrpc" must be "2.0"`)
	case idErr != nil:
		return m, bad(idErr.Error())
	case f.method != nil && (f.result != nil || f.err != nil):
		return m, bad("invalid request: a message is either a request or a response")
	}
	if f.method == nil {
		return s.response(line, f, m)
	}
	method := f.value(line, f.method)
	if method[0] != '"' || len(method) < 3 {
		return m, bad("invalid request: method must be a non-empty string")
	}
	m.request = true
	m.skel = make([]byte, 0, len(method)+48)
	m.skel = append(append(append(m.skel, `{"jsonrpc":"2.0","method":`...), method...), '}')
	if f.id != nil {
		m.skel = append(m.skel[:len(m.skel)-1], `,"id":0}`...)
	}
	m.value = f.value(line, f.params)
	m.inner = innerOf(members, inner, f.params)
	return m, nil
}

// innerOf returns the members of member p's value, offsets in that value,
// when inner has them (see members); nil otherwise.
func innerOf(members []jsonscan.Member, inner [][]jsonscan.Member, p *jsonscan.Member) []jsonscan.Member {
	if p == nil || inner == nil {
		return nil
	}
	for k, m := range members {
		if m.ValStart == p.ValStart && inner[k] != nil {
			in := inner[k]
			shift(in, p.ValStart)
			return in
		}
	}
	return nil
}

// response finishes skeleton for a frame without a method.
func (s *Stream) response(line []byte, f frameMembers, m message) (message, *frameError) {
	switch {
	case f.result == nil && f.err == nil:
		return m, &frameError{ID: m.rawID, Error: &Error{Code: CodeInvalidRequest, Message: "invalid request: neither a request nor a response"}}
	case f.result != nil && f.err != nil:
		return m, &frameError{ID: m.rawID, Error: &Error{Code: CodeInvalidRequest, Message: "invalid response: both a result and an error"}}
	case f.id == nil:
		// A response to nothing we can name; answering would loop.
		return m, &frameError{Error: &Error{Code: CodeInvalidRequest, Message: "invalid response: no id"}}
	}
	m.response = true
	if m.answers = s.awaited(m.id); m.answers == nil {
		return m, nil
	}
	m.value = f.value(line, f.result)
	m.errValue = f.value(line, f.err)
	return m, nil
}

// frameMembers are the top-level members of a JSON-RPC frame.
type frameMembers struct {
	jsonrpc, id, method, params, result, err *jsonscan.Member
}

// set records m under its name and reports whether that name was already
// set (a duplicate the library would silently resolve).
func (f *frameMembers) set(sc *jsonscan.Scanner, m jsonscan.Member) bool {
	for _, slot := range []struct {
		name string
		p    **jsonscan.Member
	}{{"jsonrpc", &f.jsonrpc}, {"id", &f.id}, {"method", &f.method}, {"params", &f.params}, {"result", &f.result}, {"error", &f.err}} {
		if sc.NameIs(m, slot.name) {
			dup := *slot.p != nil
			*slot.p = &m
			return dup
		}
	}
	return false
}

// value returns a member's value bytes, or nil for an absent member.
func (f *frameMembers) value(line []byte, m *jsonscan.Member) []byte {
	if m == nil {
		return nil
	}
	return m.Value(line)
}

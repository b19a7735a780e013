package wire

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/continuity-dev/continuity/jsonscan"
)

// frameError is a reply the Stream sends itself for a bad frame.
type frameError struct {
	ID    json.RawMessage
	Error *Error
}

// skeleton validates a frame and returns the bytes the library decodes:
// for requests the frame with its params replaced by a token (also
// returned) whose bytes are parked for TakeParams; for responses the frame
// itself, or, when it is a large answer to one of our calls, the frame with
// its result parked for TakeResult. Validation and locating the members are
// one pass of jsonscan over the frame (a large frame's second half is
// validated on another core meanwhile), so a 64 MiB payload is read once
// here, not once per question asked of it.
func (s *Stream) skeleton(line []byte, fr frame) ([]byte, string, *frameError) {
	sc := jsonscan.Scanner{B: line}
	members, err := sc.Members(make([]jsonscan.Member, 0, 8))
	switch {
	case errors.As(err, new(jsonscan.ErrNotObject)) && line[0] == '[':
		return nil, "", &frameError{Error: &Error{Code: CodeInvalidRequest, Message: "batches are not supported"}}
	case errors.As(err, new(jsonscan.ErrNotObject)):
		return nil, "", &frameError{Error: &Error{Code: CodeParseError, Message: "parse error: the line is not a JSON object"}}
	case err != nil:
		return nil, "", &frameError{Error: &Error{Code: CodeParseError, Message: "parse error: the line is not JSON"}}
	}
	var f frameMembers
	dup := false
	for _, m := range members {
		dup = f.set(&sc, m) || dup
	}
	var idRaw json.RawMessage
	if id := f.value(line, f.id); id != nil && (id[0] == '"' || id[0] == '-' || '0' <= id[0] && id[0] <= '9') {
		idRaw = json.RawMessage(id)
	}
	badID := idRaw != nil && idRaw[0] != '"' && !idNumber(idRaw)
	bad := func(msg string) *frameError {
		return &frameError{ID: idRaw, Error: &Error{Code: CodeInvalidRequest, Message: msg}}
	}
	switch {
	case dup:
		return nil, "", bad("invalid request: a member appears twice")
	case f.jsonrpc == nil || !sc.StrIs(f.value(line, f.jsonrpc), "2.0"):
		return nil, "", bad(`invalid request: "jsonrpc" must be "2.0"`)
	case f.id != nil && idRaw == nil:
		return nil, "", bad("invalid request: id must be a string or a number")
	case badID:
		// The library keeps numeric ids as uint64: a negative, fractional
		// or huge id could not be echoed or cancelled faithfully.
		return nil, "", bad("invalid request: a numeric id must be an integer from 0 to 2^63-1")
	case f.method != nil && (f.result != nil || f.err != nil):
		return nil, "", bad("invalid request: a message is either a request or a response")
	}
	if f.method == nil {
		if f.result == nil && f.err == nil {
			return nil, "", bad("invalid request: neither a request nor a response")
		}
		if f.id == nil {
			// A response to nothing we can name; answering would loop.
			return nil, "", &frameError{Error: &Error{Code: CodeInvalidRequest, Message: "invalid response: no id"}}
		}
		if f.result != nil {
			if skel, token, ok := s.parkResult(line, fr, idRaw, f.result.ValStart, f.result.ValEnd); ok {
				return skel, token, nil
			}
		}
		return line, "", nil
	}
	if method := f.value(line, f.method); method[0] != '"' || len(method) < 3 {
		return nil, "", bad("invalid request: method must be a non-empty string")
	}
	if f.params == nil {
		return line, "", nil
	}
	skel, token := s.park(line, fr, f.params.ValStart, f.params.ValEnd)
	return skel, token, nil
}

// park keeps the value line[start:end] under a new token and returns the
// frame with the token in its place: the library decodes a short string
// instead of the value, and the owner takes the original bytes back by
// token (TakeParams, TakeResult).
func (s *Stream) park(line []byte, fr frame, start, end int) ([]byte, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.parkLocked(line, fr, start, end)
}

// parkLocked is park with s.mu held.
func (s *Stream) parkLocked(line []byte, fr frame, start, end int) ([]byte, string) {
	token := s.prefix + strconv.FormatUint(s.seq.Add(1), 10) + `"`
	s.params[token] = parkedParams{b: line[start:end:end], fr: fr}
	skel := make([]byte, 0, len(line)-(end-start)+len(token))
	skel = append(skel, line[:start]...)
	skel = append(skel, token...)
	skel = append(skel, line[end:]...)
	return skel, token
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

// idNumber reports whether a numeric id is an integer in [0, 2^63-1].
func idNumber(raw []byte) bool {
	if len(raw) == 0 || len(raw) > 19 || raw[0] == '0' && len(raw) > 1 {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	return err == nil && n <= 1<<63-1
}

// idOf finds a frame's id for an error reply (the frame is valid JSON).
func idOf(line []byte) json.RawMessage {
	sc := jsonscan.Scanner{B: line, Trusted: true}
	ms, err := sc.Members(nil)
	if err != nil {
		return nil
	}
	var f frameMembers
	for _, m := range ms {
		f.set(&sc, m)
	}
	if id := f.value(line, f.id); id != nil && (id[0] == '"' || id[0] == '-' || '0' <= id[0] && id[0] <= '9') {
		return json.RawMessage(id)
	}
	return nil
}

package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"go.uber.org/zap"
)

// Raw is a JSON value written to the wire exactly as given. Put it in a
// result instead of json.RawMessage (which encoding/json compacts and
// HTML-escapes) to send large bodies without a copy or a change.
type Raw struct {
	s     *Stream
	token string
}

// Raw registers a JSON value to be written verbatim where the returned value
// is marshaled. The value is the concatenation of parts (which must be valid
// JSON together): a filtered payload is written straight from the slices of
// the host's frame that it keeps. Release it if the message is never
// written.
func (s *Stream) Raw(parts ...[]byte) *Raw {
	token := s.prefix + strconv.FormatUint(s.seq.Add(1), 10) + `"`
	s.mu.Lock()
	s.raws[token] = parts
	s.mu.Unlock()
	return &Raw{s: s, token: token}
}

// MarshalJSON returns the token that WriteObject replaces with the bytes.
func (r *Raw) MarshalJSON() ([]byte, error) { return []byte(r.token), nil }

// Release forgets the bytes of a Raw value whose message was not written.
func (r *Raw) Release() {
	r.s.mu.Lock()
	delete(r.s.raws, r.token)
	r.s.mu.Unlock()
}

// WriteObject writes one message as one line, splicing in Raw values. Large
// parts go to the pipe directly; small ones are gathered first, so a
// payload kept in many slices is not one write per slice.
func (s *Stream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	parts := [][]byte{}
	for {
		i := bytes.Index(b, []byte(s.prefix))
		if i < 0 {
			break
		}
		j := bytes.IndexByte(b[i+len(s.prefix):], '"')
		if j < 0 {
			break
		}
		end := i + len(s.prefix) + j + 1
		s.mu.Lock()
		raw, ok := s.raws[string(b[i:end])]
		delete(s.raws, string(b[i:end]))
		s.mu.Unlock()
		if !ok {
			return fmt.Errorf("wire: raw value written twice or released")
		}
		parts = append(append(parts, b[:i]), raw...)
		b = b[end:]
	}
	parts = append(parts, b, []byte{'\n'})
	s.wmu.Lock()
	defer s.wmu.Unlock()
	for _, p := range parts {
		if _, err := s.w.Write(p); err != nil {
			return err
		}
	}
	return s.w.Flush()
}

// WriteError writes an error response with the given id (nil: id null).
func (s *Stream) WriteError(id json.RawMessage, e *Error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	msg := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *Error          `json:"error"`
	}{"2.0", id, e}
	if err := s.WriteObject(msg); err != nil {
		s.log.Warn("cannot write error reply", zap.Error(err))
	}
}

// Package wire is continuity's JSON-RPC transport: NDJSON frames over a
// pipe, carried by github.com/sourcegraph/jsonrpc2 through a custom
// ObjectStream.
//
// The library decodes params into maps and re-encodes results with
// encoding/json, which is slow for 64 MiB payloads and changes bytes
// (whitespace, key order, HTML escapes). The Stream avoids both: on the way
// in, each frame is validated once and its params are cut out and parked
// under a token, so the library only decodes a small skeleton and handlers
// get the host's original bytes; on the way out, results may hold Raw
// values that are spliced into the frame verbatim as it is written.
//
// The Stream also answers what the library cannot: a malformed line gets a
// -32700 reply, an oversized frame a -32600 FRAME_TOO_LARGE reply (both with
// id null), and the connection stays up.
package wire

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/jsonscan"
)

// DefaultMaxFrameBytes is the default frame limit (PROTOCOL.md §1).
const DefaultMaxFrameBytes = 256 << 20

// Stream is a jsonrpc2.ObjectStream over NDJSON. It is safe for one reader
// (the jsonrpc2 read loop) and many concurrent writers.
type Stream struct {
	frames *frameReader
	w      *bufio.Writer // guarded by wmu; coalesces the small parts of a message
	closer io.Closer
	log    *zap.Logger

	wmu sync.Mutex

	prefix string // `"@raw:<nonce>:` — the start of every token
	seq    atomic.Uint64
	mu     sync.Mutex
	params map[string]parkedParams // incoming params (and awaited results) by token
	// awaiting maps the raw id of each call of ours still waiting for its
	// answer to the token its parked result has ("" until it arrives).
	awaiting map[string]string
	raws     map[string][][]byte // outgoing raw values (in parts) by token

	// BeforeEOF, when set, runs once when input ends, before the library
	// learns of it and closes the connection: the owner uses it to let
	// running requests write their replies first.
	BeforeEOF func()
	eofOnce   sync.Once
}

// NewStream returns a Stream reading frames from r and writing to w.
// maxFrame ≤ 0 means DefaultMaxFrameBytes. closer (may be nil) is closed by
// Close.
func NewStream(r io.Reader, w io.Writer, closer io.Closer, maxFrame int64, log *zap.Logger) *Stream {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrameBytes
	}
	if log == nil {
		log = zap.NewNop()
	}
	var nonce [12]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return &Stream{
		frames:   newFrameReader(r, maxFrame),
		w:        bufio.NewWriterSize(w, 64<<10),
		closer:   closer,
		log:      log,
		prefix:   `"@raw:` + hex.EncodeToString(nonce[:]) + `:`,
		params:   make(map[string]parkedParams),
		awaiting: make(map[string]string),
		raws:     make(map[string][][]byte),
	}
}

// ReadObject reads the next well-formed JSON-RPC message into v (the
// library's message type). Malformed and oversized frames are answered here
// and skipped.
func (s *Stream) ReadObject(v any) error {
	for {
		fr, err := s.frames.next()
		if errors.Is(err, errFrameTooLarge) {
			s.log.Warn("frame too large", zap.Int64("limit", s.frames.max))
			s.WriteError(nil, &Error{Code: CodeInvalidRequest, Message: "frame exceeds the frame limit",
				Data: map[string]any{"code": "FRAME_TOO_LARGE", "limit": s.frames.max}})
			continue
		}
		if err != nil {
			if s.BeforeEOF != nil {
				s.eofOnce.Do(s.BeforeEOF)
			}
			return err
		}
		if s.decode(fr, v) {
			return nil
		}
	}
}

// decode turns one frame into the library's message v and reports whether
// there is one; a bad frame is answered and skipped. The frame's pool
// buffer goes back to the pool here unless its params are parked, in which
// case it goes back with them (see TakeParams).
func (s *Stream) decode(fr frame, v any) bool {
	parked := false
	defer func() {
		if !parked {
			s.frames.recycle(fr)
		}
	}()
	line := bytes.TrimSpace(fr.line)
	if len(line) == 0 {
		return false
	}
	skel, token, rpcErr := s.skeleton(line, fr)
	if rpcErr != nil {
		s.log.Warn("malformed frame", zap.Int("code", rpcErr.Error.Code), zap.String("reason", rpcErr.Error.Message))
		s.WriteError(rpcErr.ID, rpcErr.Error)
		return false
	}
	if err := json.Unmarshal(skel, v); err != nil {
		id := idOf(line)
		s.log.Warn("invalid request", zap.Error(err))
		s.WriteError(id, &Error{Code: CodeInvalidRequest, Message: "invalid request: " + sanitize(err)})
		if token != "" {
			// Nobody will take the parked bytes: forget them now (drop
			// recycles the frame unless that already happened).
			s.drop(token)
			parked = true
		}
		return false
	}
	// The library copied everything it keeps out of skel; only parked
	// params still refer to the frame.
	parked = token != ""
	return true
}

// frameError is a reply the Stream sends itself for a bad frame.
type frameError struct {
	ID    json.RawMessage
	Error *Error
}

// skeleton validates a frame and returns the bytes the library decodes: the
// frame itself for responses, and for requests the frame with its params
// replaced by a token (also returned) whose bytes are parked for TakeParams. Validation and
// locating the members are one pass of jsonscan over the frame (a large
// frame's second half is validated on another core meanwhile), so a 64 MiB
// payload is read once here, not once per question asked of it.
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

// parkedParams are a request's params bytes and the frame they are in.
type parkedParams struct {
	b  []byte
	fr frame
}

// TakeParams returns the host's original params bytes for a request whose
// decoded params are p (nil when the request had none), and forgets them.
// Calling release (never nil) promises that nothing refers to the bytes any
// more: a large frame's buffer is then reused for a later frame. A caller
// that may keep the bytes, or cannot tell, simply never calls it.
func (s *Stream) TakeParams(p *json.RawMessage) (params []byte, release func()) {
	if p == nil {
		return nil, func() {}
	}
	s.mu.Lock()
	pp, ok := s.params[string(*p)]
	if ok {
		delete(s.params, string(*p))
	}
	s.mu.Unlock()
	if !ok {
		return *p, func() {}
	}
	if pp.fr.pooled == nil {
		return pp.b, func() {}
	}
	var once sync.Once
	return pp.b, func() { once.Do(func() { s.frames.recycle(pp.fr) }) }
}

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

// Close closes the underlying pipe.
func (s *Stream) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
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

// sanitize keeps a decode error short and free of input bytes.
func sanitize(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return "syntax error at offset " + strconv.FormatInt(se.Offset, 10)
	case errors.As(err, &te):
		return "member " + strconv.Quote(te.Field) + " has the wrong type"
	}
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120]
	}
	return msg
}

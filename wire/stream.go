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
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"
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

// Close closes the underlying pipe.
func (s *Stream) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
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

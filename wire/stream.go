// Package wire is continuity's JSON-RPC transport: NDJSON frames over a
// pipe. Conn is the connection — the one place that touches
// github.com/sourcegraph/jsonrpc2, whose read loop reads frames through a
// custom ObjectStream (the Stream) and calls the Conn's handler — with
// what golang.org/x/tools' jsonrpc2_v2 offers: a handler called in the
// read loop, Call, Notify, Close and Wait.
//
// The library decodes params into maps and re-encodes results with
// encoding/json, which is slow for 64 MiB payloads and changes bytes
// (whitespace, key order, HTML escapes). The Stream avoids both. On the way
// in, each frame is validated once (a large one while it arrives, read by
// read: see validate.go); the library decodes only a skeleton of
// a request (its method, and whether there is an id), and the request's id
// and params are handed to the handler as the host's own bytes: an ID, and
// Params that own their frame buffer until released. An answer to one of
// our calls never reaches the library: the read loop delivers its bytes to
// the waiting Call. On the way out, a RawResult says in its type that it is
// written byte for byte from borrowed slices.
//
// The Stream also answers what the library cannot: a malformed line gets a
// -32700 reply, an oversized frame a -32600 FRAME_TOO_LARGE reply (both with
// id null), and the connection stays up. It stops reading while the bytes
// it holds for the host reach DefaultMaxInFlight (see budget).
//
// Buffer lifetime. A frame that fits in the 64 KiB read buffer is a slice
// of it, and that buffer is never written again; a larger frame is read
// into a pool buffer. A frame's bytes count in flight from the moment it
// is read. A request's params become a *Params, which the Conn hands to
// its handler in the library's read loop; whoever holds it then either
// releases it once nothing refers to the bytes (the pool buffer carries a
// later frame) or keeps it (the bytes become ordinary memory). The answer
// to a call of ours is a *Params too, returned by Conn.Call. The one other
// path is a Follower (follow.go): an owner's work offered a large request
// frame while it arrives reads the frame's buffer, only the bytes already
// validated, until it is closed, and it is closed before that buffer
// carries anything else (when the frame leaves it, or with its Params).
// A reply that borrows from a frame buffer is a RawResult, written before
// its Params are released.
package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/diag"
)

// DefaultMaxFrameBytes is the default frame limit (docs/protocol.md §1).
const DefaultMaxFrameBytes = 256 << 20

// Stream is a jsonrpc2.ObjectStream over NDJSON. It is safe for one reader
// (the library's read loop, which Conn runs) and many concurrent writers.
type Stream struct {
	frames *frameReader
	budget *budget
	closer io.Closer
	log    *zap.Logger

	// wlock is held (a token in it) by the one line being written; a
	// channel, not a mutex, so that a line that may be given up (our
	// $/cancelRequest) can stop waiting for it.
	wlock chan struct{}
	w     *bufio.Writer // guarded by wlock; coalesces the small parts of a message

	mu sync.Mutex
	// calls are our calls to the host still waiting for their answer, by
	// ID key.
	calls map[string]*call

	// delivered is the request the library was just given: its handler
	// takes it (takeRequest) before the library reads the next frame, since
	// jsonrpc2.Conn calls the handler synchronously in its read loop. Only
	// the read loop touches it.
	delivered Request

	// BeforeEOF, when set, runs once when input ends, before the library
	// learns of it and closes the connection: the owner uses it to let
	// running requests write their replies first.
	BeforeEOF func()
	eofOnce   sync.Once

	// OnLostFrame, when set, runs in the read loop each time a line is
	// answered with a null id (not JSON, not an object, or over the frame
	// limit): a request may have been in it, and nobody can say whose.
	OnLostFrame func()

	lastPause time.Time // read loop only

	// closed is set by the Conn's Close: a frame read from then on is
	// dropped unlooked-at.
	closed atomic.Bool
}

// Request is what the handler of a request or notification takes from the
// Stream: its id exactly as sent (zero for a notification) and its params
// (nil when absent), which the handler owns from then on.
type Request struct {
	Method string
	ID     ID
	Params *Params
}

// IsCall reports a request that expects an answer (it has an id); a
// notification has none.
func (r Request) IsCall() bool { return !r.ID.IsZero() }

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
	return &Stream{
		frames: newFrameReader(r, maxFrame),
		budget: newBudget(DefaultMaxInFlight, maxFrame),
		w:      bufio.NewWriterSize(w, 64<<10),
		wlock:  make(chan struct{}, 1),
		closer: closer,
		log:    log,
		calls:  make(map[string]*call),
	}
}

// ReadObject reads the next well-formed JSON-RPC message into v (the
// library's message type). Malformed and oversized frames are answered here
// and skipped. It waits while the bytes in flight are at the limit.
func (s *Stream) ReadObject(v any) error {
	// A request whose handler did not take its params leaves them here;
	// nothing else refers to them.
	s.delivered.Params.Release()
	s.delivered = Request{}
	for {
		s.budget.waitRoom(s.paused)
		fr, err := s.frames.next()
		if s.closed.Load() {
			// Closed while the frame was on its way: nothing of it may
			// take effect, not even an error reply.
			s.frames.recycle(fr)
			if err == nil || errors.Is(err, errFrameTooLarge) {
				err = s.discardRest()
			}
			return err
		}
		if errors.Is(err, errFrameTooLarge) {
			s.log.Warn("frame too large", zap.Int64("limit", s.frames.max))
			s.WriteError(nil, &Error{Code: CodeInvalidRequest, Message: "frame exceeds the frame limit",
				Data: map[string]any{"code": diag.FrameTooLarge, "limit": s.frames.max}})
			s.lostFrame()
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

// discardRest reads the frames left until input ends and drops them
// unlooked-at (the connection is closed: nothing of them may take
// effect, not even an error reply). It returns the end of input.
func (s *Stream) discardRest() error {
	s.delivered.Params.Release()
	s.delivered = Request{}
	for {
		fr, err := s.frames.next()
		if errors.Is(err, errFrameTooLarge) {
			continue
		}
		if err != nil {
			return err
		}
		s.frames.recycle(fr)
	}
}

// paused logs that reading stopped because too much is held for the host,
// at most once a second (a host that reads slowly pauses it often).
func (s *Stream) paused(held int64) {
	if now := time.Now(); now.Sub(s.lastPause) >= time.Second {
		s.lastPause = now
		s.log.Info("reading paused: replies are waiting for the host to read them", zap.Int64("heldBytes", held))
	}
}

// takeRequest hands the request the library just delivered to its
// handler. Call it once per request, in the handler the library calls.
func (s *Stream) takeRequest() Request {
	r := s.delivered
	s.delivered = Request{}
	return r
}

// decode turns one frame into the library's message v and reports whether
// there is one; a bad frame is answered and skipped. The frame's bytes
// count in flight from here; they stop counting (and its pool buffer is
// reused) here, unless Params now own them.
func (s *Stream) decode(fr frame, v any) bool {
	size := fr.size()
	s.budget.take(size)
	var owner *Params
	defer func() {
		if owner == nil {
			s.frames.recycle(fr)
			s.budget.give(size)
		}
	}()
	line := bytes.TrimSpace(fr.line)
	if len(line) == 0 {
		return false
	}
	m, rpcErr := s.skeleton(fr, line)
	if rpcErr != nil {
		s.log.Warn("malformed frame", zap.Int("code", rpcErr.Error.Code), zap.String("reason", rpcErr.Error.Message))
		s.WriteError(rpcErr.ID, rpcErr.Error)
		if rpcErr.ID == nil {
			s.lostFrame()
		}
		return false
	}
	if m.value != nil {
		owner = &Params{b: m.value, fr: fr, s: s, held: size, long: fr.long(), members: m.inner}
	}
	if m.response {
		s.deliver(m, owner)
		return false // nothing for the library: the loop reads on
	}
	if err := json.Unmarshal(m.skel, v); err != nil {
		s.log.Warn("invalid message", zap.String("reason", DecodeError(err)))
		owner.Release()
		s.WriteError(m.rawID, &Error{Code: CodeInvalidRequest, Message: "invalid request: " + DecodeError(err)})
		return false
	}
	s.delivered = Request{ID: m.id, Params: owner}
	return true
}

// deliver hands a response to the call of ours it answers; one nobody
// awaits (a duplicate, or the answer to a call given up) is dropped, as is
// one whose error member is not an error object.
func (s *Stream) deliver(m message, result *Params) {
	if m.answers == nil {
		s.log.Debug("ignored an answer to no call of ours")
		return
	}
	var e *RemoteError
	if m.errValue != nil {
		var err error
		if e, err = remoteError(m.errValue); err != nil {
			s.log.Warn("invalid message", zap.String("reason", DecodeError(err)))
			result.Release()
			return
		}
	}
	s.answer(m.answers, result, e)
}

// lostFrame runs OnLostFrame, if set.
func (s *Stream) lostFrame() {
	if s.OnLostFrame != nil {
		s.OnLostFrame()
	}
}

// Close closes the underlying pipe.
func (s *Stream) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}

// InFlight returns the bytes held for the host now and the most held at
// once so far.
func (s *Stream) InFlight() (now, peak int64) { return s.budget.stats() }

// DecodeError describes an encoding/json decode error without quoting any
// of the input: the error's own text carries the client's value (all of a
// 100,000-digit number), and what it says goes to the host and the log. It
// names the member (by the decoding type's path) and the reason only.
func DecodeError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return "the message is not valid JSON"
	case errors.As(err, &te) && te.Field != "":
		return "member " + te.Field + " has the wrong type"
	case errors.As(err, &te):
		return "a member has the wrong type"
	}
	return "the message does not have the shape of a JSON-RPC message"
}

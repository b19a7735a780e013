package wire

import (
	"encoding/json"
	"errors"
	"strconv"
)

// ErrClosed is the error of a call or notification of ours on a
// connection that is closed, or whose input has ended: no answer can come.
var ErrClosed = errors.New("wire: the connection is closed")

// RemoteError is a JSON-RPC error the host answered one of our calls
// with, as it sent it: data stays its bytes (nil when absent), for the
// caller to read as it needs.
type RemoteError struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

func (e *RemoteError) Error() string {
	return "jsonrpc2: code " + strconv.FormatInt(e.Code, 10) + " message: " + e.Message
}

// call is one call of ours to the host, from just before its request is
// written until the caller takes its answer or gives up. The read loop
// delivers the answer as the host's bytes (a *Params over the frame), so
// a large result — a session/read of a long session — is decoded once,
// by the caller, into its own type. While the call is sent and
// unanswered the read loop goes on reading however much is in flight:
// only stdin can bring the answer.
type call struct {
	s   *Stream
	key string
	// answered is closed when the answer (result or err) is delivered.
	answered chan struct{}
	// Guarded by s.mu.
	sent, delivered, done bool
	result                *Params
	err                   *RemoteError
}

// await announces a call of ours with the string id (which needs no JSON
// escaping). Every await ends with take or forget.
func (s *Stream) await(id string) *call {
	c := &call{s: s, key: "s" + id, answered: make(chan struct{})}
	s.mu.Lock()
	s.calls[c.key] = c
	s.mu.Unlock()
	return c
}

// markSent records that the call's request is on the wire.
func (c *call) markSent() {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if !c.sent && !c.delivered && !c.done {
		c.sent = true
		c.s.budget.awaiting(1)
	}
}

// take ends an answered call and returns its result, owned by the caller
// until it releases it, or the host's error.
func (c *call) take() (*Params, error) {
	p, e := c.end()
	if e != nil {
		p.Release()
		return nil, e
	}
	return p, nil
}

// forget ends a call whose caller gave up or could not send it: a result
// delivered for it is released, and one that arrives later is dropped by
// the read loop (nobody awaits it any more).
func (c *call) forget() {
	p, _ := c.end()
	p.Release()
}

// end unregisters the call and returns what was delivered for it, if
// anything.
func (c *call) end() (*Params, *RemoteError) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.done {
		return nil, nil
	}
	c.done = true
	delete(c.s.calls, c.key)
	if c.sent && !c.delivered {
		c.s.budget.awaiting(-1)
	}
	p, e := c.result, c.err
	c.result, c.err = nil, nil
	return p, e
}

// awaited returns the call of ours that a response with this id answers
// first, or nil.
func (s *Stream) awaited(id ID) *call {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.calls[id.key]; c != nil && !c.delivered {
		return c
	}
	return nil
}

// answer delivers c's answer: result holds the host's bytes, or e the
// host's error. A call that ended meanwhile gets nothing, and the bytes
// are released.
func (s *Stream) answer(c *call, result *Params, e *RemoteError) {
	s.mu.Lock()
	if c.done || c.delivered {
		s.mu.Unlock()
		result.Release()
		return
	}
	c.delivered, c.result, c.err = true, result, e
	if c.sent {
		s.budget.awaiting(-1)
	}
	s.mu.Unlock()
	close(c.answered)
}

// remoteError decodes the error member of a response, as the library's
// Response would: a value that is not an error object makes the frame
// invalid, and it is dropped.
func remoteError(raw []byte) (*RemoteError, error) {
	var e struct {
		Code    int64            `json:"code"`
		Message string           `json:"message"`
		Data    *json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, err
	}
	re := &RemoteError{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		re.Data = append(json.RawMessage(nil), *e.Data...)
	}
	return re, nil
}

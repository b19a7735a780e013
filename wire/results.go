package wire

import "encoding/json"

// parkResultFrom is the result size from which an answer to one of our own
// calls is kept as the host's bytes instead of being handed to the
// library: jsonrpc2 decodes every result into an interface{} just to tell
// a response from a request, which for a session/read of a long session is
// most of the cost of reading it.
const parkResultFrom = 64 << 10

// Call is one call of ours to the host, from just before its request is
// written until its result is taken. The read loop keeps a large answer's
// bytes for it, and while it is sent and unanswered the read loop goes on
// reading however much is in flight: only stdin can bring the answer.
type Call struct {
	s   *Stream
	key string
	// Guarded by s.mu.
	sent, answered, done bool
	result               *Params
}

// Await announces a call of ours with the string id (which needs no JSON
// escaping). Every Await ends with Result or Forget.
func (s *Stream) Await(id string) *Call {
	c := &Call{s: s, key: "s" + id}
	s.mu.Lock()
	s.calls[c.key] = c
	s.mu.Unlock()
	return c
}

// Sent records that the call's request is on the wire.
func (c *Call) Sent() {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if !c.sent && !c.answered && !c.done {
		c.sent = true
		c.s.budget.awaiting(1)
	}
}

// Result ends the call with what the library delivered (raw) and returns
// the result bytes, owned by the caller until it releases them: the host's
// original bytes when the result was large, else raw itself.
func (c *Call) Result(raw json.RawMessage) *Params {
	p := c.end()
	if p == nil {
		return &Params{b: raw, s: c.s}
	}
	return p
}

// Forget ends a call whose caller gave up or got an error: a result kept
// for it is released, and one that arrives later is left to the library
// (which drops the answer to a call nobody waits for).
func (c *Call) Forget() { c.end().Release() }

// end unregisters the call and returns the result kept for it, if any.
func (c *Call) end() *Params {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.done {
		return nil
	}
	c.done = true
	delete(c.s.calls, c.key)
	if c.sent && !c.answered {
		c.s.budget.awaiting(-1)
	}
	p := c.result
	c.result = nil
	return p
}

// awaited returns the call of ours that a response with this id answers
// first, or nil.
func (s *Stream) awaited(id ID) *Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.calls[id.key]; c != nil && !c.answered {
		return c
	}
	return nil
}

// answer records the library's delivery of c's answer; result holds the
// host's bytes when they were kept. A call that ended meanwhile gets
// nothing, and its bytes are released.
func (s *Stream) answer(c *Call, result *Params) {
	s.mu.Lock()
	if c.done {
		s.mu.Unlock()
		result.Release()
		return
	}
	c.answered, c.result = true, result
	if c.sent {
		s.budget.awaiting(-1)
	}
	s.mu.Unlock()
}

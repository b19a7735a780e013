package wire

import "encoding/json"

// parkResultFrom is the result size from which an answer to one of our own
// calls is parked instead of being handed to the library: jsonrpc2 decodes
// every result into an interface{} just to tell a response from a request,
// which for a session/read of a long session is most of the cost of
// reading it.
const parkResultFrom = 64 << 10

// Await announces a call of ours with the string id: a large result that
// answers it is kept as the host's bytes for TakeResult. Every Await must
// be followed by TakeResult or Forget.
func (s *Stream) Await(id string) {
	s.mu.Lock()
	s.awaiting[rawID(id)] = ""
	s.mu.Unlock()
}

// TakeResult returns the result of the call with the string id, given what
// the library delivered (raw): the parked original bytes when the result was
// large, else raw itself. Calling release (never nil) promises that nothing
// refers to the bytes any more, so their frame buffer can be reused.
func (s *Stream) TakeResult(id string, raw json.RawMessage) (result []byte, release func()) {
	s.mu.Lock()
	token := s.awaiting[rawID(id)]
	delete(s.awaiting, rawID(id))
	s.mu.Unlock()
	if token == "" || string(raw) != token {
		s.drop(token)
		return raw, func() {}
	}
	return s.TakeParams(&raw)
}

// Forget ends an Await whose caller gave up or got an error: a result that
// was parked for it is dropped, and one that arrives later is not parked
// (the library drops the answer to a call nobody waits for).
func (s *Stream) Forget(id string) {
	s.mu.Lock()
	token := s.awaiting[rawID(id)]
	delete(s.awaiting, rawID(id))
	s.mu.Unlock()
	s.drop(token)
}

// parkResult parks the result line[start:end] of a response with the raw
// id when it is large and one of our calls is still waiting for it (under
// one lock, so a Forget cannot slip in between), and returns the frame with
// a token in its place. ok is false when the library is to get the frame
// as it is.
func (s *Stream) parkResult(line []byte, fr frame, id json.RawMessage, start, end int) (skel []byte, token string, ok bool) {
	if end-start < parkResultFrom || id == nil {
		return nil, "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, waiting := s.awaiting[string(id)]; !waiting || t != "" {
		return nil, "", false
	}
	skel, token = s.parkLocked(line, fr, start, end)
	s.awaiting[string(id)] = token
	return skel, token, true
}

// drop forgets parked bytes (token may be "") and recycles their frame.
func (s *Stream) drop(token string) {
	if token == "" {
		return
	}
	s.mu.Lock()
	pp, ok := s.params[token]
	delete(s.params, token)
	s.mu.Unlock()
	if ok {
		s.frames.recycle(pp.fr)
	}
}

// rawID is a string id as it appears in a frame. Our ids need no escaping.
func rawID(id string) string { return `"` + id + `"` }

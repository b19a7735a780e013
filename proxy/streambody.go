package proxy

import (
	"errors"
	"io"
	"sync"
)

// streamBody is the body of a pipelined upstream request: the filter hands
// it the final bytes as borrowed slices of the request buffer (which
// outlives the upstream request and is never written to), and the
// transport's writer takes each slice as it is, so the bytes go from the
// buffer to the connection without being copied into a pipe. WriteTo
// writes every slice in one call; Read serves a reader that copies.
//
// The filter's goroutine calls sendAll and finish; the transport calls Read
// or WriteTo (holding the body as a transportBody, see unhiding); the
// pipeline calls Close once the upstream request is over, possibly while
// the transport is still in a Read or a Write. Once it is closed and no
// Read or WriteTo is under way, nothing reads the slices any more, and
// quiet, if set, is called (the request buffer may then be reused).
type streamBody struct {
	pieces chan [][]byte // unbuffered: sendAll returns once the writer took the slices
	closed chan struct{} // closed by Close: the upstream request is over
	err    error         // why the body ended; set before pieces is closed
	rest   []byte        // what Read has not yet copied of the current slice
	batch  [][]byte      // the slices of the last hand-over not yet taken

	mu      sync.Mutex
	done    bool // Close has run; closed is closed
	reading int  // Reads and WriteTos under way
	// quiet is called once, when the body is closed and no Read or WriteTo
	// is under way; set before the transport is given the body.
	quiet     func()
	quietOnce sync.Once
}

func newStreamBody() *streamBody {
	return &streamBody{pieces: make(chan [][]byte), closed: make(chan struct{})}
}

// sendAll hands bs to the transport in one hand-over (one wake of its
// writer for all of them), or fails with errRequestDone once the
// transport has closed the body.
func (s *streamBody) sendAll(bs [][]byte) error {
	if len(bs) == 0 {
		return nil
	}
	select {
	case s.pieces <- bs:
		return nil
	case <-s.closed:
		return errRequestDone
	}
}

// finish ends the body: well when err is nil, else with err, which makes
// the transport abort the request so that the upstream never sees the
// body complete.
func (s *streamBody) finish(err error) {
	s.err = err
	close(s.pieces)
}

// next waits for the next slice; at the end it returns the body's error,
// io.EOF when it ended well.
func (s *streamBody) next() ([]byte, error) {
	for len(s.batch) == 0 {
		bs, ok := <-s.pieces
		if !ok {
			break
		}
		s.batch = bs
	}
	if len(s.batch) > 0 {
		b := s.batch[0]
		s.batch = s.batch[1:]
		return b, nil
	}
	if s.err != nil {
		return nil, s.err
	}
	return nil, io.EOF
}

// WriteTo writes each slice to w as the filter sends it, until the body
// ends or is closed.
func (s *streamBody) WriteTo(w io.Writer) (int64, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.exit()
	var n int64
	if len(s.rest) > 0 {
		m, err := w.Write(s.rest)
		n, s.rest = n+int64(m), nil
		if err != nil {
			return n, err
		}
	}
	for {
		b, err := s.next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if s.isClosed() {
			return n, errRequestDone
		}
		m, err := w.Write(b)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
}

// Read copies the bytes sent so far into p: from as many slices of the
// hand-over at hand as fit, so that a reader that copies (an HTTP/2
// transport, which does not take WriteTo) writes p-sized chunks rather
// than one per slice, however short the slices between the filter's edits
// are. It waits for a hand-over only when it has nothing. Once the body
// is closed it fails.
func (s *streamBody) Read(p []byte) (int, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.exit()
	if len(s.rest) == 0 {
		b, err := s.next()
		if err != nil {
			return 0, err
		}
		s.rest = b
	}
	n := copy(p, s.rest)
	s.rest = s.rest[n:]
	for n < len(p) && len(s.rest) == 0 && len(s.batch) > 0 {
		s.rest, s.batch = s.batch[0], s.batch[1:]
		m := copy(p[n:], s.rest)
		s.rest = s.rest[m:]
		n += m
	}
	return n, nil
}

// Close tells the filter that the upstream request is over; from now on
// the body refuses to be read.
func (s *streamBody) Close() error {
	s.mu.Lock()
	first, idle := !s.done, s.reading == 0
	s.done = true
	s.mu.Unlock()
	if first {
		close(s.closed)
	}
	if idle {
		s.quieted()
	}
	return nil
}

// enter starts a Read or WriteTo, or refuses it once the body is closed.
func (s *streamBody) enter() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return errRequestDone
	}
	s.reading++
	return nil
}

// exit ends a Read or WriteTo; the last to end on a closed body makes it
// quiet.
func (s *streamBody) exit() {
	s.mu.Lock()
	s.reading--
	idle := s.done && s.reading == 0
	s.mu.Unlock()
	if idle {
		s.quieted()
	}
}

// quieted calls quiet, once.
func (s *streamBody) quieted() {
	if s.quiet != nil {
		s.quietOnce.Do(s.quiet)
	}
}

// isClosed reports whether Close has run.
func (s *streamBody) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

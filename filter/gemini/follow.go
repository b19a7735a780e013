package gemini

import (
	"errors"
	"math"
	"sync"

	"github.com/continuity-dev/continuity/jsonscan"
)

// ErrStopped is the error of a followed scan whose payload stopped
// arriving before its end (the reader failed or gave up).
var ErrStopped = errors.New("gemini: the payload stopped arriving before its end")

// Follower scans a payload while it is read into its buffer, so that by
// the time its last byte is in, the payload is validated and indexed and
// only the signatures' decisions are left: the proxy reads a 16 MiB
// history for about as long as the scan takes, and doing both one after
// the other doubled the time a request waited.
//
// The scan is Scan's, in steps — the opening brace, each top-level member,
// each content and each separator — each redone from its start with more
// bytes when it fails before the whole payload is there. A step that
// succeeds on a prefix succeeds the same way on the whole (every step ends
// on a closing byte, and a top-level value must be followed by one more
// byte that has arrived), so a followed Doc is the Doc Scan gives. A
// payload the followed scan refuses is scanned again whole by Scan once it
// has arrived, so that it fails with exactly Scan's error.
//
// The reader owns the buffer and writes only its not yet arrived part;
// the scan's goroutine, owned by the Follower, reads only what has arrived
// and ends when it has the Doc, the error, or ErrStopped after Stop.
type Follower struct {
	payload []byte

	mu      sync.Mutex
	n       int // payload[:n] has arrived
	stopped bool
	// indexed is what the scan has indexed so far, whole contents only:
	// its elements are never written again, so Send may read them while
	// the scan appends past them (see publish).
	indexed Doc

	// Each waiter says what it waits for, so that only what it waits for
	// wakes it: the scan (await) for wantBytes of the payload to have
	// arrived, Send and Key (awaitIndexed) for the indexed contents to
	// reach wantEnd. A reader reports thousands of arrivals and the scan
	// publishes a content every few kilobytes: a 16 MiB request broadcast
	// some six thousand times to waiters that, each time, looked and went
	// back to sleep, on the cores the proxy shares with its connections.
	// Each is the least of its waiters' wants (math.MaxInt when none
	// waits) and is reset when they are woken, which then say again what
	// they wait for.
	arrived, grown     sync.Cond
	wantBytes, wantEnd int

	done  chan struct{} // closed when doc and err are set
	ended bool          // doc and err are set (guarded by mu)
	doc   *Doc
	err   error
}

// Follow starts scanning payload, of which nothing has arrived yet. The
// caller reports arrivals with Arrived and must, unless it reports the
// whole payload, call Stop.
func Follow(payload []byte) *Follower {
	f := &Follower{payload: payload, done: make(chan struct{}), wantBytes: math.MaxInt, wantEnd: math.MaxInt}
	f.arrived.L, f.grown.L = &f.mu, &f.mu
	go func() {
		defer close(f.done)
		doc, err := f.scan()
		f.mu.Lock()
		f.doc, f.err, f.ended = doc, err, true
		f.wantEnd = math.MaxInt
		f.mu.Unlock()
		f.grown.Broadcast()
	}()
	return f
}

// Arrived reports that payload[:n] has arrived; it wakes the scan only
// once what the scan waits for is in.
func (f *Follower) Arrived(n int) {
	f.mu.Lock()
	f.n = max(f.n, min(n, len(f.payload)))
	wake := f.n >= f.wantBytes
	if wake {
		f.wantBytes = math.MaxInt
	}
	f.mu.Unlock()
	if wake {
		f.arrived.Broadcast()
	}
}

// Stop tells the scan that nothing more will arrive and waits until it no
// longer reads the payload. After the whole payload has arrived it only
// waits.
func (f *Follower) Stop() {
	f.mu.Lock()
	f.stopped = true
	f.wantBytes = math.MaxInt
	f.mu.Unlock()
	f.arrived.Broadcast()
	<-f.done
}

// Doc waits for the scan and returns what Scan returns for the payload,
// or ErrStopped when it stopped arriving first.
func (f *Follower) Doc() (*Doc, error) {
	<-f.done
	return f.doc, f.err
}

// await waits until want bytes (at most the whole payload) have arrived
// and returns how many have; ErrStopped once the reader gave up.
func (f *Follower) await(want int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	want = min(want, len(f.payload))
	for f.n < want && !f.stopped {
		f.wantBytes = min(f.wantBytes, want)
		f.arrived.Wait()
	}
	if f.n < want {
		return 0, ErrStopped
	}
	return f.n, nil
}

func (f *Follower) scan() (*Doc, error) {
	fs := &following{f: f, Scanner: jsonscan.Scanner{B: f.payload[:0]}, d: &Doc{payload: f.payload}}
	d, err := fs.document()
	if err == nil || errors.Is(err, ErrStopped) {
		return d, err
	}
	if _, err := f.await(len(f.payload)); err != nil {
		return nil, err
	}
	return Scan(f.payload)
}

// followStep is the least number of further bytes a step waits for after
// failing on what has arrived, so that a scan that catches up with the
// reader redoes a partial step a bounded number of times (a long content
// at most about twice in all). A variable only so that tests can follow
// small payloads in small steps.
var followStep = 256 << 10

// following is the state of one followed scan: the scanner over what has
// arrived (B grows), and the Doc being indexed.
type following struct {
	jsonscan.Scanner
	f *Follower
	d *Doc
}

// whole reports whether the scanner sees the whole payload.
func (s *following) whole() bool { return len(s.B) == len(s.f.payload) }

// step runs parse, a parse of the bytes from `from` on, until it succeeds:
// once, or again with more bytes each time it fails before the whole
// payload has arrived. undo, when not nil, takes back what a failed parse
// added to the Doc.
func (s *following) step(from int, parse func() error, undo func()) error {
	for {
		err := parse()
		if err == nil || s.whole() {
			return err
		}
		if undo != nil {
			undo()
		}
		have := len(s.B)
		n, aerr := s.f.await(have + max(have-from, followStep))
		if aerr != nil {
			return aerr
		}
		s.B = s.f.payload[:n]
	}
}

// errIncomplete is a followed step's failure on a prefix; it never reaches
// the caller, as the payload is then scanned again whole.
var errIncomplete = errors.New("gemini: more of the payload is needed")

// next sets *i to the first byte at or after from that is not whitespace,
// which must have arrived.
func (s *following) next(i *int, from int) error {
	if *i = s.WS(from); *i >= len(s.B) {
		return errIncomplete
	}
	return nil
}

// document follows Scan's walk of the top-level object.
func (s *following) document() (*Doc, error) {
	i := 0
	if err := s.step(0, func() error {
		if err := s.next(&i, 0); err != nil {
			return err
		}
		if s.B[i] != '{' {
			return errIncomplete // Scan names it
		}
		return s.next(&i, i+1)
	}, nil); err != nil {
		return nil, err
	}
	seen, closed, end := false, s.B[i] == '}', i+1
	for !closed {
		key := i
		var keyEnd, v int
		if err := s.step(key, func() (err error) {
			if keyEnd, v, err = s.Key(key); err == nil && v >= len(s.B) {
				err = errIncomplete
			}
			return err
		}, nil); err != nil {
			return nil, err
		}
		var err error
		if s.StrIs(s.B[key:keyEnd], "contents") {
			if seen {
				return nil, errIncomplete // Scan names it
			}
			seen = true
			end, err = s.contents(v)
		} else {
			err = s.step(v, func() (err error) {
				// A number may go on past what has arrived: a value
				// must be followed by a byte that has.
				if end, err = s.Value(v); err == nil && end >= len(s.B) && !s.whole() {
					err = errIncomplete
				}
				return err
			}, nil)
		}
		if err != nil {
			return nil, err
		}
		if i, closed, err = s.separator(end, '}'); err != nil {
			return nil, err
		}
		end = i
	}
	if err := s.step(end, func() error {
		if j := s.WS(end); j != len(s.B) || !s.whole() {
			return errIncomplete
		}
		return nil
	}, nil); err != nil {
		return nil, err
	}
	s.d.current = s.d.currentTurn()
	return s.d, nil
}

// contents follows scanContents: one step per content, whose parts and
// signatures a failed step takes back.
func (s *following) contents(v int) (int, error) {
	d := s.d
	var i int
	if err := s.step(v, func() error {
		if s.B[v] != '[' {
			return errIncomplete // Scan names it
		}
		return s.next(&i, v+1)
	}, nil); err != nil {
		return 0, err
	}
	if s.B[i] == ']' {
		return i + 1, nil
	}
	for {
		if len(d.contents) == MaxContents {
			return 0, errIncomplete // Scan names it
		}
		start, parts, sigs := i, len(d.parts), d.sigs
		if err := s.step(start, func() (err error) {
			i, err = d.scanContent(&s.Scanner, start)
			return err
		}, func() {
			d.parts, d.sigs = d.parts[:parts], sigs
		}); err != nil {
			return 0, err
		}
		closed := false
		var err error
		s.f.publish(d)
		if i, closed, err = s.separator(i, ']'); err != nil || closed {
			return i, err
		}
	}
}

// publish makes the contents d has indexed so far, and their parts,
// visible to Send and Key, and wakes them once the contents reach what
// they wait for.
func (f *Follower) publish(d *Doc) {
	f.mu.Lock()
	f.indexed = Doc{payload: f.payload, contents: d.contents, parts: d.parts[:len(d.parts):len(d.parts)], sigs: d.sigs}
	wake := f.indexed.indexedEnd() >= f.wantEnd
	if wake {
		f.wantEnd = math.MaxInt
	}
	f.mu.Unlock()
	if wake {
		f.grown.Broadcast()
	}
}

// indexedEnd is where the last content d holds ends, 0 when it holds none.
func (d *Doc) indexedEnd() int {
	if len(d.contents) == 0 {
		return 0
	}
	return d.contents[len(d.contents)-1].end
}

// awaitIndexed waits until the contents indexed reach byte end of the
// payload (the last one ends at or past it), or the scan has ended (ended
// true), and returns what is indexed.
func (f *Follower) awaitIndexed(end int) (d Doc, ended bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.indexed.indexedEnd() < end && !f.ended {
		f.wantEnd = min(f.wantEnd, end)
		f.grown.Wait()
	}
	return f.indexed, f.ended
}

// separator reads what follows the element that ends at end: a comma and
// the start of the next element (closed false), or closer (closed true,
// next just past it).
func (s *following) separator(end int, closer byte) (next int, closed bool, err error) {
	err = s.step(end, func() error {
		j := s.WS(end)
		switch {
		case j < len(s.B) && s.B[j] == ',':
			closed = false
			return s.next(&next, j+1)
		case j < len(s.B) && s.B[j] == closer:
			next, closed = j+1, true
			return nil
		}
		return errIncomplete
	}, nil)
	return next, closed, err
}

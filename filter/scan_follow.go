package filter

import (
	"errors"
	"sync"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/jsonscan"
)

// arrival is how much of a payload being read into its buffer has arrived:
// the reader advances it, a following scan waits on it. An open arrival
// (openArrival) is a payload that is a JSON object at the start of a
// longer buffer — an llm/payload frame's params member, followed while
// the frame arrives: its length is not known before the scan finds the
// object's closing brace, and the reader may end it (finish) before the
// buffer is full.
type arrival struct {
	mu      sync.Mutex
	cond    sync.Cond
	n       int // payload[:n] has arrived
	total   int // the payload's length (an open one: at most this)
	stopped bool
	// open says the payload ends at the closing brace of the object it
	// starts with, not at total; end is that brace's offset + 1, once the
	// scan has found it (0 before).
	open bool
	end  int
}

func newArrival(total int) *arrival {
	a := &arrival{total: total}
	a.cond.L = &a.mu
	return a
}

// openArrival is the arrival of a payload that starts buf's first byte and
// ends where its object closes, somewhere in buf.
func openArrival(size int) *arrival {
	a := newArrival(size)
	a.open = true
	return a
}

// advance reports that payload[:n] has arrived.
func (a *arrival) advance(n int) {
	a.mu.Lock()
	if n <= a.n {
		a.mu.Unlock()
		return
	}
	a.n = min(n, a.total)
	a.mu.Unlock()
	a.cond.Broadcast()
}

// finish reports that nothing arrives after payload[:n]: an open payload's
// reader saw its frame end there.
func (a *arrival) finish(n int) {
	a.mu.Lock()
	a.total = min(max(n, a.n), a.total)
	a.n = a.total
	a.mu.Unlock()
	a.cond.Broadcast()
}

// stop tells a waiting scan that nothing more will arrive.
func (a *arrival) stop() {
	a.mu.Lock()
	a.stopped = true
	a.mu.Unlock()
	a.cond.Broadcast()
}

// await waits until want bytes (at most the whole payload) have arrived
// and returns how many have; errStopped once the reader gave up.
func (a *arrival) await(want int) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.n < min(want, a.total) && !a.stopped {
		a.cond.Wait()
	}
	if a.n < min(want, a.total) {
		return 0, errStopped
	}
	return a.n, nil
}

// all reports whether the n bytes a scan has are all that will arrive.
func (a *arrival) all(n int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return n >= a.total
}

// ended records where an open payload's object closed.
func (a *arrival) ended(end int) {
	a.mu.Lock()
	a.end = end
	a.mu.Unlock()
}

// length is the payload's length once the scan has ended well: where an
// open payload's object closed, or the whole.
func (a *arrival) length() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.open {
		return a.end
	}
	return a.total
}

// followStep is the least number of further bytes a step of a following
// scan waits for after failing on what has arrived, so that a scan that
// catches up with the reader redoes a partial step a bounded number of
// times (and a long item at most about twice in all).
const followStep = 256 << 10

// step runs parse, a parse of the bytes from `from` on that changes nothing
// until it succeeds: once, or, in a following scan, again with more bytes
// each time it fails before the whole payload has arrived, since a parse
// that fails on a prefix may succeed on the whole.
func (s *scanner) step(from int, parse func() error) error {
	for {
		err := parse()
		if err == nil || s.arrive == nil || s.arrive.all(len(s.B)) {
			return err
		}
		have := len(s.B)
		n, aerr := s.arrive.await(have + max(have-from, followStep))
		if aerr != nil {
			return aerr
		}
		s.B = s.whole[:n]
	}
}

// followScan is scan for a payload still arriving in s.whole (s.arrive):
// the same parse, in steps — the opening brace, each top-level member, each
// input item and each separator — each redone from its start with more
// bytes when it fails before the whole payload is there, each item
// published as soon as it is read. A payload that fails is scanned again
// whole by scan, so that it fails with exactly the error Select gives it.
func (s *scanner) followScan() (*doc, error) {
	s.B = s.whole[:0]
	d, err := s.follow()
	if err == nil || errors.Is(err, errStopped) || s.arrive.open {
		// An open payload's error is not named: its reader does not know
		// yet whether the frame around it is valid, and filters the
		// payload again (Turn.Apply) unless it follows again.
		return d, err
	}
	// Some faults (a second input, a bound) show before the rest arrives;
	// the scan that names them reads the whole payload, so it waits.
	if _, aerr := s.arrive.await(len(s.whole)); aerr != nil {
		return nil, aerr
	}
	again := scanner{Scanner: jsonscan.Scanner{B: s.whole, Trusted: s.Trusted}, compaction: s.compaction}
	if _, rerr := again.scan(); rerr != nil {
		return nil, rerr
	}
	return nil, err
}

// follow parses the document as jsonscan's Document does, step by step.
func (s *scanner) follow() (*doc, error) {
	d := &doc{}
	i := 0
	if err := s.step(0, func() error {
		i = s.WS(0)
		if i >= len(s.B) || s.B[i] != '{' {
			return syntaxError(i)
		}
		return s.next(&i, i+1)
	}); err != nil {
		return nil, err
	}
	sawInput, closed := false, s.B[i] == '}'
	end := i + 1
	for !closed {
		key := i
		var keyEnd, v int
		if err := s.step(key, func() (err error) {
			if keyEnd, v, err = s.Key(key); err == nil && v >= len(s.B) {
				err = syntaxError(v)
			}
			return err
		}); err != nil {
			return nil, err
		}
		var err error
		if end, err = s.followMember(key, keyEnd, v, d, &sawInput); err != nil {
			return nil, err
		}
		d.top = append(d.top, jsonscan.Member{KeyStart: key, KeyEnd: keyEnd, ValStart: v, ValEnd: end})
		if i, closed, err = s.separator(end, '}'); err != nil {
			return nil, err
		}
		end = i
	}
	if s.arrive.open {
		// The payload is the object; what follows is the frame's.
		s.arrive.ended(end)
		return d, nil
	}
	// Only whitespace may follow, up to the very end.
	if err := s.step(end, func() error {
		if j := s.WS(end); j != len(s.B) || !s.arrive.all(len(s.B)) {
			return syntaxError(j)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return d, nil
}

// followMember is member for a following scan: input's items are read
// one step each, any other value in one step.
func (s *scanner) followMember(keyStart, keyEnd, v int, d *doc, sawInput *bool) (end int, err error) {
	isInput := s.StrIs(s.B[keyStart:keyEnd], "input")
	if isInput {
		if *sawInput {
			return 0, diag.New(diag.InvalidPayload, "payload has more than one input member")
		}
		*sawInput = true
	}
	if !isInput || s.B[v] != '[' {
		err = s.step(v, func() (err error) {
			switch {
			case !isInput:
				// A number that ends where the bytes do may go on in the
				// next read: it ends only where something follows it.
				if end, err = s.Value(v); err == nil && end == len(s.B) && !s.arrive.all(end) {
					err = syntaxError(end)
				}
			case s.B[v] == '"':
				end, err = s.Str(v)
			default:
				err = diag.New(diag.InvalidPayload, "payload input is neither an array nor a string")
			}
			return err
		})
		return end, err
	}
	var i int
	if err := s.step(v, func() error { return s.next(&i, v+1) }); err != nil {
		return 0, err
	}
	if s.B[i] == ']' {
		return i + 1, nil
	}
	var members []member
	for {
		if len(d.items) == MaxItems {
			return 0, tooManyItems()
		}
		start := i
		if err := s.step(start, func() (err error) {
			if s.B[start] != '{' {
				return diag.Newf(diag.InvalidPayload, "input item %d is not an object", len(d.items))
			}
			members, i, err = s.object(start, members[:0])
			return err
		}); err != nil {
			return 0, err
		}
		if err := s.add(item{span: span{start, i}}, members, d); err != nil {
			return 0, err
		}
		closed := false
		if i, closed, err = s.separator(i, ']'); err != nil || closed {
			return i, err
		}
	}
}

// next sets *i to the first byte at or after from that is not whitespace,
// which must have arrived.
func (s *scanner) next(i *int, from int) error {
	if *i = s.WS(from); *i >= len(s.B) {
		return syntaxError(*i)
	}
	return nil
}

// separator reads what follows the element that ends at end: a comma and
// the start of the next element (closed false), or closer (closed true,
// next just past it).
func (s *scanner) separator(end int, closer byte) (next int, closed bool, err error) {
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
		return syntaxError(j)
	})
	return next, closed, err
}

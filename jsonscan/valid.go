package jsonscan

import (
	"bytes"
	"sync/atomic"
)

// ParallelFrom is the document size from which a validating Members scan
// hands the second half of the document to another goroutine. Below it a
// second goroutine costs more than it saves.
const ParallelFrom = 256 << 10

// parallelFrom is a variable only so that tests can drive the split with
// small documents.
var parallelFrom = ParallelFrom

// split is the second half of a large document, validated on another
// goroutine while the scan validates the first half. It starts where the
// document looks like it holds the next element of an array of objects
// (`},{"` at or after the middle; in compact JSON that is how the items of
// an input array meet). The guess needs no proof: the scan only steps over
// the run when it reaches that very byte as the start of an array element,
// and then the other goroutine's parse from there was the document's own
// parse. If the scan never meets it there, it validates those bytes itself.
type split struct {
	at   int         // where the run of elements starts
	end  int         // where it ends: after the first element not followed by a comma
	ok   bool        // the run is valid
	stop atomic.Bool // the scan went past at: the work is not needed
	done chan struct{}
}

// startSplit starts validating the run of array elements in b from its
// split point, or returns nil when b has none.
func startSplit(b []byte) *split {
	mid := len(b) / 2
	k := bytes.Index(b[mid:], []byte(`},{"`))
	if k < 0 {
		return nil
	}
	sp := &split{at: mid + k + 2, done: make(chan struct{})}
	go func() {
		defer close(sp.done)
		sp.end, sp.ok = sp.validRun(b)
	}()
	return sp
}

// validRun validates values separated by commas from sp.at up to the first
// value that no comma follows, and returns that value's end.
func (sp *split) validRun(b []byte) (int, bool) {
	s := Scanner{B: b}
	i := sp.at
	for !sp.stop.Load() {
		end, err := s.Value(i)
		if err != nil {
			return 0, false
		}
		j := s.WS(end)
		if j >= len(b) || b[j] != ',' {
			return end, true
		}
		i = s.WS(j + 1)
	}
	return 0, false
}

// meet is called by the scan at a value start i at or past the split point.
// It returns where the scan goes on: past the validated run when i is the
// split point inside an array and the run is valid, else i itself (the scan
// validates those bytes on its own). Either way the split is used up.
func (s *Scanner) meet(i int, inArray bool) int {
	sp := s.split
	s.split = nil
	if i != sp.at || !inArray {
		sp.stop.Store(true)
		<-sp.done
		return i
	}
	<-sp.done
	if !sp.ok {
		return i // the scan finds the error itself and names it
	}
	return sp.end
}

// finish waits for a split the scan never reached (it ended early), so that
// no goroutine reads the document after the scan has returned.
func (s *Scanner) finish() {
	if sp := s.split; sp != nil {
		s.split = nil
		sp.stop.Store(true)
		<-sp.done
	}
}

package wire

import (
	"bytes"
	"sync"

	"github.com/continuity-dev/continuity/jsonscan"
)

// halvesFrom is the frame size from which the read loop validates a frame
// on two cores when its middle falls inside a long string (validHalves).
// A 17 MiB tool/result is one such string, and its validating pass held
// every frame behind it for about 22 ms. A variable only so that tests can
// use small frames.
var halvesFrom = 4 << 20

// quietAround is how far on each side of the cut no quote may be for the
// cut to be taken as inside a long string: a guess that needs no proof
// (see validHalves), only there to keep payloads of many short strings,
// where it would be wrong, off this path.
const quietAround = 32 << 10

// validHalves reports whether line is a valid JSON document, deciding it
// on two cores, and returns its top-level members (appended to dst); or
// false when it cannot say (the caller then validates the whole line,
// which finds and names any error). It cuts line at p in the middle of what
// looks like a long string, and checks at once, on two goroutines:
//
//   - right: line[p:q] is valid string content, q being the first
//     unescaped quote at or after p (the string's end, if p was inside);
//   - left: x = line[:p] + line[q:] — the line with that content taken out
//     — is valid JSON, and x[p] closes a string.
//
// Both together prove line valid: x's string that ends at x[p] has valid
// content up to p, ending on a whole character and escape (a closing
// quote follows it), and valid content appended to it before its closing
// quote keeps it one valid string, which is exactly line. The bytes on
// each side of the cut are printable ASCII other than a backslash or
// quote, so no escape or UTF-8 sequence is cut unseen: one that would be
// makes x invalid. x's members are line's, those after the cut moved by
// the length taken out: no further pass over line is needed.
func validHalves(line []byte, dst []jsonscan.Member) ([]jsonscan.Member, bool) {
	if len(line) < halvesFrom {
		return nil, false
	}
	p := quietCut(line)
	if p < 0 {
		return nil, false
	}
	q := closingQuote(line, p)
	if q < 0 {
		return nil, false
	}
	rightOK := make(chan bool, 1)
	go func() {
		// Str starts reading at p (it steps over the opening quote it is
		// given without looking at it), so line[p-1], plain text, stands
		// in for one.
		sc := jsonscan.Scanner{B: line[: q+1 : q+1]}
		end, err := sc.Str(p - 1)
		rightOK <- err == nil && end == q+1
	}()
	bp := scratch.Get().(*[]byte)
	x := append(append((*bp)[:0], line[:p]...), line[q:]...)
	sc := jsonscan.Scanner{B: x}
	members, err := sc.Members(dst)
	leftOK := err == nil && oddQuotes(x[:p])
	*bp = x[:0]
	scratch.Put(bp)
	if !<-rightOK || !leftOK {
		return nil, false
	}
	shift := func(o *int) {
		if *o > p {
			*o += q - p
		}
	}
	for i := range members {
		m := &members[i]
		shift(&m.KeyStart)
		shift(&m.KeyEnd)
		shift(&m.ValStart)
		shift(&m.ValEnd)
	}
	return members, true
}

// scratch holds the buffers validHalves copies the left part into, so a
// stream of large results does not allocate (and zero) one per frame.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// quietCut returns a cut point near the middle of line with plain text
// (printable ASCII, no backslash, no quote) on both sides and no quote
// within quietAround of it, or -1.
func quietCut(line []byte) int {
	mid := len(line) / 2
	lo, hi := mid-quietAround, mid+quietAround
	if lo < 1 || hi > len(line) || bytes.IndexByte(line[lo:hi], '"') >= 0 {
		return -1
	}
	for p := mid; p < mid+256; p++ {
		if plain(line[p-1]) && plain(line[p]) {
			return p
		}
	}
	return -1
}

func plain(c byte) bool { return c >= 0x20 && c < 0x7f && c != '\\' && c != '"' }

// closingQuote returns the first quote at or after p that an even number
// of backslashes precedes, or -1.
func closingQuote(b []byte, p int) int {
	for i := p; ; {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		k := i - 1
		for k >= p && b[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i
		}
		i++
	}
}

// oddQuotes reports whether b, the start of a valid JSON document, holds
// an odd number of unescaped quotes: the byte after it is inside a string.
func oddQuotes(b []byte) bool {
	n := 0
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return n%2 == 1
		}
		i += j
		k := i - 1
		for k >= 0 && b[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			n++
		}
		i++
	}
}

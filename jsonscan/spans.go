package jsonscan

import (
	"slices"
	"sort"
	"sync/atomic"
	"unsafe"
)

// LongString is the length from which the Validator records a string's
// span: below it a trusted skip costs less than a look-up would save.
const LongString = 64 << 10

// Spans are where the long strings (LongString bytes or more) of one
// validated document start and end, so that a trusted Scanner steps over
// each in O(1) instead of searching for its closing quote: a 17 MiB tool
// result is otherwise searched once per reader (the envelope, then the
// event), about 1.5 ms each on the read loop while the requests behind it
// wait.
//
// Only Validator.Long makes them, for the bytes it validated, and they
// remember where those bytes are: a Scanner uses them only when its B
// lies inside that document, and then only at a span's own start, so
// spans cannot be applied to other bytes or shifted. The zero value has
// no spans. Their lifetime is the document's: whoever owns the bytes owns
// the spans (wire.Params carries them with the params' bytes), and
// retires them (Retire) before the buffer carries another document.
// Spans hold the document's buffer alive: keep them no longer than the
// bytes they describe.
type Spans struct {
	doc  *byte // the document's first byte
	n    int   // its length
	list []span
	// retired is set by Retire, when the document's buffer is about to
	// carry other bytes; shared by every copy of these spans.
	retired *atomic.Bool
}

// span is one long string: doc[start] is its opening quote, doc[end-1]
// its closing one.
type span struct{ start, end int }

// Long returns the spans of the long strings of the document just
// validated, bound to doc: the bytes fed, in order, without a trailing
// \r the caller cut. It returns no spans unless End found the document
// valid JSON, or when doc is not those bytes (its length differs, or a span
// does not start and end with a quote).
func (v *Validator) Long(doc []byte) Spans {
	if v.state != sTrailing || len(v.long) == 0 || len(doc) > v.off || len(doc) < v.off-1 {
		return Spans{}
	}
	for _, s := range v.long {
		if s.end > len(doc) || doc[s.start] != '"' || doc[s.end-1] != '"' {
			return Spans{}
		}
	}
	// A copy: Reset reuses v.long for the next document while these
	// spans may still be in use.
	return Spans{doc: unsafe.SliceData(doc), n: len(doc), list: slices.Clone(v.long), retired: new(atomic.Bool)}
}

// Retire ends the spans' use, in every copy of them: the owner of the
// document's buffer calls it before the buffer is reused for other bytes
// (a copy kept past that would otherwise point into a later document).
func (sp Spans) Retire() {
	if sp.retired != nil {
		sp.retired.Store(true)
	}
}

// Len is the number of long strings recorded.
func (sp Spans) Len() int { return len(sp.list) }

// strEnd returns the index just past the string whose opening quote is
// b[i], when it is a recorded long string of sp's document and b lies
// inside that document.
func (sp Spans) strEnd(b []byte, i int) (int, bool) {
	if len(sp.list) == 0 || len(b)-i < LongString || sp.retired.Load() {
		return 0, false
	}
	at, ok := sp.offset(b)
	if !ok {
		return 0, false
	}
	start := at + i
	k := sort.Search(len(sp.list), func(k int) bool { return sp.list[k].start >= start })
	if k == len(sp.list) || sp.list[k].start != start || sp.list[k].end-at > len(b) {
		return 0, false
	}
	return sp.list[k].end - at, true
}

// offset is where b starts in sp's document; ok is false when b is not a
// part of it. Only the addresses are compared: nothing is read through
// them.
func (sp Spans) offset(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	d := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(sp.doc))
	if d > uintptr(sp.n) || int(d)+len(b) > sp.n {
		return 0, false
	}
	return int(d), true
}

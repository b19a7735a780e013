package jsonscan

import (
	"slices"
	"sort"
	"sync/atomic"
	"unsafe"
)

// LongString is the length from which the Validator records a string's
// span. A trusted scan looks its strings up in document order, one
// comparison each (see lookup), so the look-up pays for itself on
// strings far shorter than a 17 MiB tool output: a reasoning item's
// 16 KiB ciphertext is otherwise searched for its closing quote by every
// trusted reader (the params' envelope, the followed filter), and, not
// known plain, searched for a backslash and counted in UTF-16, after the
// Validator had already read every byte of it.
const LongString = 4 << 10

// Spans are where the long strings of one validated document start and
// end, and whether each is plain (printable ASCII without escapes, so its
// value is its bytes), so that a trusted Scanner steps over each in O(1)
// instead of searching for its closing quote: a 17 MiB tool result is
// otherwise searched once per reader (the envelope, then the event),
// about 1.5 ms each on the read loop while the requests behind it wait.
//
// Only the Validator makes them, for the bytes it validated (Long, for a
// whole document; Follow, for one still arriving), and they remember
// where those bytes are: a Scanner uses them only when its B lies inside
// that document, and then only at a span's own start, so spans cannot be
// applied to other bytes or shifted. The zero value has no spans. Their
// lifetime is the document's: whoever owns the bytes owns the spans
// (wire.Params carries them with the params' bytes), and retires them
// (Retire) before the buffer carries another document. Spans hold the
// document's buffer alive: keep them no longer than the bytes they
// describe.
type Spans struct {
	doc  *byte // the document's first byte
	n    int   // its length (a followed one: its buffer's capacity)
	list []span
	// live, for spans of a document still arriving (Follow), is where the
	// Validator publishes list as it grows; list is nil then.
	live *liveSpans
	// retired is set by Retire, when the document's buffer is about to
	// carry other bytes; shared by every copy of these spans.
	retired *atomic.Bool
}

// span is one long string: doc[start] is its opening quote, doc[end-1]
// its closing one; plain says the content between is printable ASCII
// without escapes.
type span struct {
	start, end int
	plain      bool
}

// liveSpans are the spans of a document being validated as it arrives,
// published by the Validator's goroutine (Validator.Publish) for a reader
// on another: each publication is a slice whose elements the Validator
// never writes again (it appends past them, and drops rather than reuses
// its list once it has published it; see Reset), so a reader needs only
// the atomic load of the latest one.
//
// The pointer (and open, which the same goroutine writes) has a 128-byte
// block to itself (the allocator's size class): the Validator writes it
// after every read on one core, and a flag the scan reads on every
// look-up on the other (Spans.retired, a tiny allocation made next to it)
// would otherwise share its cache line.
type liveSpans struct {
	pub atomic.Pointer[[]span]
	// open is the document offset of the opening quote of the string the
	// Validator was inside at its latest Publish, or -1: a following scan
	// that meets that string knows, without searching the bytes it has,
	// that they do not close it (see Spans.unclosed).
	open atomic.Int64
	_    [112]byte
}

// Long returns the spans of the long strings of the document just
// validated, bound to doc: the bytes fed, in order,
// without a trailing \r the caller cut. It returns no spans unless End
// found the document valid JSON, or when doc is not those bytes (its
// length differs, or a span does not start and end with a quote).
func (v *Validator) Long(doc []byte) Spans {
	if v.state != sTrailing || len(v.strs) == 0 || len(doc) > v.off || len(doc) < v.off-1 {
		return Spans{}
	}
	for _, s := range v.strs {
		if s.end > len(doc) || doc[s.start] != '"' || doc[s.end-1] != '"' {
			return Spans{}
		}
	}
	// A copy: Reset reuses v.strs for the next document while these
	// spans may still be in use.
	return Spans{doc: unsafe.SliceData(doc), n: len(doc), list: slices.Clone(v.strs), retired: new(atomic.Bool)}
}

// Follow returns spans of the document being validated, bound to buf,
// the buffer it is being read into from the document's first byte (the
// first byte fed), up to cap(buf): the strings of LongString bytes or
// more whose closing quote the Validator has passed, as of its latest
// Publish. They are for a reader on another goroutine that scans only
// bytes the Validator has passed and Published before it was told of
// them (the wire's follower). A later Follow (the document moved to
// another buffer) ends the publication to these. Reset ends it too; the
// spans stay as last published.
func (v *Validator) Follow(buf []byte) Spans {
	if cap(buf) == 0 {
		return Spans{}
	}
	v.live, v.liveBuf, v.published = &liveSpans{}, buf[:cap(buf)], 0
	v.live.open.Store(-1)
	sp := Spans{doc: unsafe.SliceData(v.liveBuf), n: cap(buf), live: v.live, retired: new(atomic.Bool)}
	v.Publish()
	return sp
}

// Publish makes the spans found so far visible to the spans Follow
// returned, unless the document is known bad. It is cheap when no string
// has closed since the last call (the wire calls it after every read).
// Like Long, it checks that each new span starts and ends with a quote
// in the bound buffer (the bytes were just fed, so they are at hand): a
// caller whose buffer does not hold the bytes it fed, where it said,
// gets no further spans.
func (v *Validator) Publish() {
	if v.live == nil {
		return
	}
	open := int64(-1)
	if (v.state == sStr || v.state == sEsc || v.state == sUTF8) && v.strAt < len(v.liveBuf) && v.liveBuf[v.strAt] == '"' {
		open = int64(v.strAt)
	}
	if v.live.open.Load() != open {
		v.live.open.Store(open) // once per string, not once per read
	}
	if len(v.strs) == v.published || v.Failed() {
		return
	}
	for _, s := range v.strs[v.published:] {
		if s.end > len(v.liveBuf) || v.liveBuf[s.start] != '"' || v.liveBuf[s.end-1] != '"' {
			v.live, v.liveBuf = nil, nil // the spans stay as last published
			return
		}
	}
	s := v.strs[:len(v.strs):len(v.strs)]
	v.live.pub.Store(&s)
	v.published = len(v.strs)
}

// Retire ends the spans' use, in every copy of them: the owner of the
// document's buffer calls it before the buffer is reused for other bytes
// (a copy kept past that would otherwise point into a later document).
func (sp Spans) Retire() {
	if sp.retired != nil {
		sp.retired.Store(true)
	}
}

// Len is the number of long strings recorded (for followed spans, as of
// the latest publication).
func (sp Spans) Len() int { return len(sp.spans()) }

// spans is the list as of now.
func (sp *Spans) spans() []span {
	if sp.live != nil {
		if p := sp.live.pub.Load(); p != nil {
			return *p
		}
		return nil
	}
	return sp.list
}

// strEnd returns the index just past the string whose opening quote is
// b[i], and whether it is plain, when it is a recorded long string of
// sp's document, b lies inside that document and b holds the whole
// string. c is the looking scan's cursor (see lookup).
func (sp *Spans) strEnd(b []byte, i int, c *lookup) (end int, plain, ok bool) {
	if sp.retired == nil || len(b)-i < LongString {
		return 0, false, false
	}
	off, ok := sp.offset(b)
	if !ok {
		return 0, false, false
	}
	start := off + i
	if c.of != sp.retired {
		*c = lookup{of: sp.retired, list: sp.spans()}
	}
	list := c.list
	if sp.live != nil && (len(list) == 0 || list[len(list)-1].start < start) {
		// Past what this scan has seen published: look again.
		list = sp.spans()
		c.list = list
	}
	k := min(c.at, len(list))
	switch {
	case k < len(list) && list[k].start == start:
	case (k == len(list) || list[k].start > start) && (k == 0 || list[k-1].start < start):
		// Between two recorded strings: start is not one.
		c.at = k
		return 0, false, false
	default:
		k = sort.Search(len(list), func(k int) bool { return list[k].start >= start })
		c.at = k
		if k == len(list) || list[k].start != start {
			return 0, false, false
		}
	}
	end = list[k].end - off
	// The opening quote is where the scan is; the closing one is not
	// read again (a cache miss per string): Long and Publish checked both
	// when they made the spans.
	if end > len(b) || b[i] != '"' || sp.retired.Load() {
		return 0, false, false
	}
	c.at = k + 1
	return end, list[k].plain, true
}

// unclosed reports that the string whose opening quote is b[i] does not
// end in b, for followed spans (Follow) whose Validator was still inside
// it when it last published: b, the bytes a following scan has, were all
// reported after a publication that saw them, and every later one is
// further on, so the string's closing quote is past b's end. The scan
// then fails the string at once, as a search of b for its quote would,
// instead of searching up to 256 KiB of it again each time it looks.
func (sp *Spans) unclosed(b []byte, i int) bool {
	if sp.live == nil || i >= len(b) || b[i] != '"' {
		return false
	}
	off, ok := sp.offset(b)
	return ok && sp.live.open.Load() == int64(off+i) && !sp.retired.Load()
}

// lookup is a trusted Scanner's place in its spans, so that a scan in
// document order finds each string with one comparison, and reads a
// follower's published list again only once it has passed the last
// string it saw (the Validator publishes on another core).
type lookup struct {
	of   *atomic.Bool // the spans looked in (their retired flag names them)
	list []span       // their list as last seen
	at   int          // where the last look-up left off
}

// offset is where b starts in sp's document; ok is false when b is not a
// part of it. Only the addresses are compared: nothing is read through
// them.
func (sp *Spans) offset(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	d := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(sp.doc))
	if d > uintptr(sp.n) || int(d)+len(b) > sp.n {
		return 0, false
	}
	return int(d), true
}

package jsonscan

// The reference: the validating scanner and the refValidator as they were before
// the word-at-a-time rewrite (main a129b15), renamed, validating mode only. The
// tests hold the new code to its verdicts, error offsets and members, and the
// benchmarks measure both in the same run.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"sync/atomic"
	"unicode/utf8"
)

// refScanner walks one JSON document. In validating mode every byte it passes
// is checked against RFC 8259 (strings must also be valid UTF-8); in trusted
// mode it only finds where values end, which lets
// strings be skipped with a vectorised search for the closing quote. Either
// way it never decodes a value: ordinary content is only skipped.
type refScanner struct {
	B []byte // the document
	// Plain is set by Str: the string it skipped was printable ASCII
	// without escapes, so its value is its bytes.
	Plain bool
	stack []byte // closing brackets of the containers Value is inside
	// refSplit, during a validating scan of a large document, is the second
	// half that another goroutine validates (see refSplit).
	split *refSplit
}

// WS returns the index of the first non-whitespace byte at or after i.
func (s *refScanner) WS(i int) int {
	for i < len(s.B) {
		switch s.B[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// num skips the number starting at i.
func (s *refScanner) num(i int) (int, error) {
	b := s.B
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = refDigits(b, i)
	default:
		return 0, syntaxError(i)
	}
	if i < len(b) && b[i] == '.' {
		j := refDigits(b, i+1)
		if j == i+1 {
			return 0, syntaxError(j)
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := refDigits(b, i)
		if j == i {
			return 0, syntaxError(j)
		}
		i = j
	}
	return i, nil
}

func refDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// lit skips one of the literals true, false and null.
func (s *refScanner) lit(i int) (int, error) {
	for _, w := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(s.B[i:], []byte(w)) {
			return i + len(w), nil
		}
	}
	return 0, syntaxError(i)
}

// Key skips the member name at i (which must be a string), the colon and
// the whitespace around it, returning the name's end and the value start.
func (s *refScanner) Key(i int) (keyEnd, valStart int, err error) {
	if i >= len(s.B) || s.B[i] != '"' {
		return 0, 0, syntaxError(i)
	}
	if keyEnd, err = s.Str(i); err != nil {
		return 0, 0, err
	}
	i = s.WS(keyEnd)
	if i >= len(s.B) || s.B[i] != ':' {
		return 0, 0, syntaxError(i)
	}
	return keyEnd, s.WS(i + 1), nil
}

// Value skips the value starting at i (a non-whitespace byte) and returns
// the index just past it. It keeps its own bracket stack instead of
// recursing, so arbitrarily deep nesting cannot exhaust the goroutine stack.
func (s *refScanner) Value(i int) (int, error) {
	b := s.B
	stack := s.stack[:0]
	defer func() { s.stack = stack[:0] }()
	var err error
	for {
		if i >= len(b) {
			return 0, syntaxError(i)
		}
		stepped := false // over the run of elements another goroutine validated
		if s.split != nil && i >= s.split.at {
			next := s.meet(i, len(stack) > 0 && stack[len(stack)-1] == ']')
			i, stepped = next, next != i
		}
		if !stepped {
			switch c := b[i]; {
			case c == '{' || c == '[':
				closer := byte('}')
				if c == '[' {
					closer = ']'
				}
				i = s.WS(i + 1)
				if i < len(b) && b[i] == closer {
					i++
					break
				}
				stack = append(stack, closer)
				if closer == '}' {
					if _, i, err = s.Key(i); err != nil {
						return 0, err
					}
				}
				continue
			case c == '"':
				i, err = s.Str(i)
			case c == '-' || '0' <= c && c <= '9':
				i, err = s.num(i)
			default:
				i, err = s.lit(i)
			}
			if err != nil {
				return 0, err
			}
		}
		// After a complete value: close containers or move to the next element.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			i = s.WS(i)
			if i >= len(b) {
				return 0, syntaxError(i)
			}
			top := stack[len(stack)-1]
			if b[i] == top {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return 0, syntaxError(i)
			}
			i = s.WS(i + 1)
			if top == '}' {
				if _, i, err = s.Key(i); err != nil {
					return 0, err
				}
			}
			break
		}
	}
}

// The SWAR constants let refMark test eight bytes at a time.
const (
	refLsb = 0x0101010101010101
	refMsb = 0x8080808080808080
)

// refMark sets the high bit of every byte of w that needs a closer look in a
// string: control characters (they borrow below 0x20), non-ASCII (the high
// bit is already set) and backslashes. Only the lowest refMark is exact; that
// is all refPlainPrefix needs.
func refMark(w uint64) uint64 {
	x := w ^ (refLsb * '\\')
	return ((w-refLsb*0x20)&^w | w | (x-refLsb)&^x) & refMsb
}

// refPlainPrefix returns the length of the longest prefix of seg that is
// printable ASCII without backslashes, testing 32 and then 8 bytes at a time.
func refPlainPrefix(seg []byte) int {
	i := 0
	// In dense text (code, logs) the next escape is usually a few words away.
	for ; i < 32 && i+8 <= len(seg); i += 8 {
		if m := refMark(binary.LittleEndian.Uint64(seg[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i+32 <= len(seg); i += 32 {
		if refMark(binary.LittleEndian.Uint64(seg[i:]))|refMark(binary.LittleEndian.Uint64(seg[i+8:]))|
			refMark(binary.LittleEndian.Uint64(seg[i+16:]))|refMark(binary.LittleEndian.Uint64(seg[i+24:])) != 0 {
			break
		}
	}
	for ; i+8 <= len(seg); i += 8 {
		if m := refMark(binary.LittleEndian.Uint64(seg[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(seg); i++ {
		if c := seg[i]; c < 0x20 || c >= utf8.RuneSelf || c == '\\' {
			return i
		}
	}
	return i
}

// refMarkCtl is refMark without the backslash test, for segments already known
// to hold none: control characters and non-ASCII only.
func refMarkCtl(w uint64) uint64 {
	return ((w - refLsb*0x20) | w) & refMsb
}

// refPrintablePrefix returns the length of the longest prefix of seg that is
// printable ASCII; seg holds no backslash (a vectorised search found the
// next one), so the test per word is cheaper than refMark's. Long runs (base64
// ciphertext and images) go 64 bytes per round.
func refPrintablePrefix(seg []byte) int {
	i := 0
	for ; i+64 <= len(seg); i += 64 {
		w := seg[i : i+64 : i+64]
		if refMarkCtl(binary.LittleEndian.Uint64(w))|refMarkCtl(binary.LittleEndian.Uint64(w[8:]))|
			refMarkCtl(binary.LittleEndian.Uint64(w[16:]))|refMarkCtl(binary.LittleEndian.Uint64(w[24:]))|
			refMarkCtl(binary.LittleEndian.Uint64(w[32:]))|refMarkCtl(binary.LittleEndian.Uint64(w[40:]))|
			refMarkCtl(binary.LittleEndian.Uint64(w[48:]))|refMarkCtl(binary.LittleEndian.Uint64(w[56:])) != 0 {
			break
		}
	}
	for ; i+8 <= len(seg); i += 8 {
		if m := refMarkCtl(binary.LittleEndian.Uint64(seg[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(seg); i++ {
		if c := seg[i]; c < 0x20 || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// Str skips the string whose opening quote is at i and returns the index
// just past its closing quote. It sets s.Plain when the string is printable
// ASCII without escapes, so its value is its bytes and its UTF-16 length is
// its byte length. The closing quote is found with the vectorised
// bytes.IndexByte and the bytes before it are checked eight at a time, so a
// base64 ciphertext or a 17 MiB tool output is read about twice at memory
// speed; only blocks holding escapes, control characters or non-ASCII are
// looked at byte by byte.
func (s *refScanner) Str(i int) (int, error) {
	s.Plain = false
	b := s.B
	i++
	q := -1  // the next quote at or after i, once searched
	bs := -1 // the next backslash at or after i before q, or q
	simple := true
	for {
		if q < i {
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				return 0, syntaxError(len(b))
			}
			q = i + j
		}
		if simple {
			// Until the first escape, look for backslashes with the
			// vectorised search: base64 ciphertext and images have none.
			if bs < i || bs > q {
				bs = q
				if k := bytes.IndexByte(b[i:q], '\\'); k >= 0 {
					bs = i + k
				}
			}
			i += refPrintablePrefix(b[i:bs])
		} else {
			// Text with escapes has the next one a few words away.
			i += refPlainPrefix(b[i:q])
		}
		if i == q {
			s.Plain = simple
			return q + 1, nil
		}
		simple = false
		switch c := b[i]; {
		case c == '\\':
			if i+1 < q && refShortEscape[b[i+1]] {
				i += 2
				continue
			}
			n := refEscapeLen(b[i:])
			if n == 0 {
				return 0, syntaxError(i)
			}
			i += n
		case c < 0x20:
			return 0, syntaxError(i)
		case c < utf8.RuneSelf: // unreachable: the lowest refMark is exact
			i++
		default: // a run of non-ASCII text, e.g. CJK comments
			for i < q && b[i] >= utf8.RuneSelf {
				r, n := utf8.DecodeRune(b[i:q])
				if r == utf8.RuneError && n == 1 {
					return 0, syntaxError(i)
				}
				i += n
			}
		}
	}
}

// refShortEscape marks the characters that complete a two-byte escape. An
// escaped quote is left to refEscapeLen: it may be the quote str found.
var refShortEscape = [256]bool{'\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// refEscapeLen returns the length of the valid escape sequence at the start of
// b (which begins with a backslash), or 0 when it is malformed.
func refEscapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, h := range b[2:6] {
			if refUnhex(h) < 0 {
				return 0
			}
		}
		return 6
	}
	return 0
}

// refUnhex returns the value of one hexadecimal digit, or -1.
func refUnhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}

// refSplit is the second half of a large document, validated on another
// goroutine while the scan validates the first half. It starts where the
// document looks like it holds the next element of an array of objects
// (`},{"` at or after the middle; in compact JSON that is how the items of
// an input array meet). The guess needs no proof: the scan only steps over
// the run when it reaches that very byte as the start of an array element,
// and then the other goroutine's parse from there was the document's own
// parse. If the scan never meets it there, it validates those bytes itself.
type refSplit struct {
	at   int         // where the run of elements starts
	end  int         // where it ends: after the first element not followed by a comma
	ok   bool        // the run is valid
	stop atomic.Bool // the scan went past at: the work is not needed
	done chan struct{}
}

// refStartSplit starts validating the run of array elements in b from its
// refSplit point, or returns nil when b has none.
func refStartSplit(b []byte) *refSplit {
	mid := len(b) / 2
	k := bytes.Index(b[mid:], []byte(`},{"`))
	if k < 0 {
		return nil
	}
	sp := &refSplit{at: mid + k + 2, done: make(chan struct{})}
	go func() {
		defer close(sp.done)
		sp.end, sp.ok = sp.validRun(b)
	}()
	return sp
}

// validRun validates values separated by commas from sp.at up to the first
// value that no comma follows, and returns that value's end.
func (sp *refSplit) validRun(b []byte) (int, bool) {
	s := refScanner{B: b}
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

// meet is called by the scan at a value start i at or past the refSplit point.
// It returns where the scan goes on: past the validated run when i is the
// refSplit point inside an array and the run is valid, else i itself (the scan
// validates those bytes on its own). Either way the refSplit is used up.
func (s *refScanner) meet(i int, inArray bool) int {
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

// finish waits for a refSplit the scan never reached (it ended early), so that
// no goroutine reads the document after the scan has returned.
func (s *refScanner) finish() {
	if sp := s.split; sp != nil {
		s.split = nil
		sp.stop.Store(true)
		<-sp.done
	}
}

// refValidator validates one JSON document fed to it in pieces, as they
// arrive, and finds its top-level members: the wire feeds it each read of
// a large frame from the pipe, so that when the frame's newline arrives
// only the last read is left to check (a validating pass over a 17 MiB
// tool result after it had fully arrived held every request behind it for
// about 22 ms).
//
// It accepts exactly what a validating refScanner's Members accepts on the
// concatenated pieces, and reports the same error at the same offset
// (RFC 8259, strings valid UTF-8 as utf8.DecodeRune decides, an
// unterminated string at the document's end even when a bad byte follows
// its last quote — Str looks for the closing quote first). The zero value
// is ready for a document; Reset makes it ready for another.
type refValidator struct {
	off   int      // the document offset of the next byte fed
	state refState // what the next byte may be
	sub   uint8    // the refState's progress: bytes of a literal, escape or UTF-8 sequence
	stack []byte

	// start is where the literal, escape or UTF-8 sequence being read
	// began (an error in it is reported there).
	start int
	// lo and hi bound the next continuation byte of a UTF-8 sequence.
	lo, hi byte
	lit    string
	inName bool // the string being read is a member name

	topObject bool
	member    Member // the top-level member being read
	members   []Member

	errAt int // where the document stops being JSON, once known

	strAt int    // where the string being read began (its quote)
	long  []span // the long strings read so far (see Long)
}

type refState uint8

const (
	refSDoc      refState = iota // before the document: whitespace, then a value
	refSValue                    // a value (whitespace first)
	refSObjFirst                 // after '{': a name or '}'
	refSArrFirst                 // after '[': a value or ']'
	refSKey                      // after ',' in an object: a name
	refSColon                    // after a name: ':'
	refSAfter                    // after a value: ',' or a closer (or the end)
	refSTrailing                 // after the document: whitespace only
	refSStr                      // in a string's content
	refSEsc                      // after a backslash in a string; sub counts \u hex refDigits + 1
	refSUTF8                     // in a UTF-8 sequence; sub is the bytes still wanted
	refSNum                      // in a number; sub is one of the num constants
	refSLit                      // in true, false or null; sub is the bytes read
	refSStrErr                   // a string went bad at errAt: looking for any later quote
	refSFailed                   // errAt is final
)

// Number progress; the final ones (a number may end there) are refNumZero,
// refNumInt, refNumFrac and refNumExp.
const (
	refNumMinus uint8 = iota
	refNumZero
	refNumInt
	refNumDot
	refNumFrac
	refNumE
	refNumESign
	refNumExp
)

// Reset readies v for a new document, keeping its buffers.
func (v *refValidator) Reset() {
	*v = refValidator{stack: v.stack[:0], members: v.members[:0], long: v.long[:0]}
}

// Len is the number of bytes fed so far.
func (v *refValidator) Len() int { return v.off }

// fail ends validation at offset at.
func (v *refValidator) fail(at int) {
	v.errAt = at
	v.state = refSFailed
}

// Write feeds the next bytes of the document. It never fails: the verdict
// comes from End.
func (v *refValidator) Write(p []byte) {
	base := v.off
	v.off += len(p)
	i := 0
	for i < len(p) && v.state != refSFailed {
		switch v.state {
		case refSStr:
			i = v.str(p, i, base)
		case refSStrErr:
			if bytes.IndexByte(p[i:], '"') >= 0 {
				v.state = refSFailed // Str would find that quote and stop at errAt
			}
			return
		default:
			v.byte1(p[i], base+i)
			i++
		}
	}
}

// str reads string content from p[i:] (at document offset base) up to
// the closing quote or the end of p. Its inner loop tests a machine word
// at a time and steps over two-byte escapes in place, so tool output (an
// escaped tab or newline every few words) costs no call per escape.
func (v *refValidator) str(p []byte, i, base int) int {
	for i < len(p) {
		for i+8 <= len(p) {
			m := refMarkStr(binary.LittleEndian.Uint64(p[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
			if p[i] != '\\' || i+1 >= len(p) || !refEscapeChar[p[i+1]] {
				break
			}
			i += 2
		}
		if i+8 > len(p) {
			for i < len(p) && refPlainStr(p[i]) {
				i++
			}
			if i == len(p) {
				return i
			}
		}
		switch c := p[i]; {
		case c == '"':
			v.strEnd(base + i + 1)
			return i + 1
		case c == '\\':
			if i+1 < len(p) && refEscapeChar[p[i+1]] {
				i += 2
				continue
			}
			v.start, v.sub, v.state = base+i, 0, refSEsc
			return i + 1
		case c < 0x20:
			v.strFail(base + i)
			return i
		default:
			if utf8.FullRune(p[i:]) {
				r, n := utf8.DecodeRune(p[i:])
				if r == utf8.RuneError && n == 1 {
					v.strFail(base + i)
					return i
				}
				i += n
				continue
			}
			v.utf8Start(c, base+i)
			return i + 1
		}
	}
	return i
}

// refPlainStr reports printable ASCII other than a quote or a backslash.
func refPlainStr(c byte) bool { return c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' }

// refEscapeChar marks the characters that complete a two-byte escape.
var refEscapeChar = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// strFail records a bad byte in a string at at. Str would report it only
// if a quote follows somewhere (it finds the closing quote first); until
// one is seen the error stands at the end of the document.
func (v *refValidator) strFail(at int) {
	v.errAt = at
	v.state = refSStrErr
}

// utf8Start begins a multi-byte sequence whose first byte c, at offset
// at, is the last byte fed so far.
func (v *refValidator) utf8Start(c byte, at int) {
	v.lo, v.hi = 0x80, 0xBF
	switch {
	case c >= 0xC2 && c <= 0xDF:
		v.sub = 1
	case c == 0xE0:
		v.sub, v.lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEF:
		v.sub = 2
		if c == 0xED {
			v.hi = 0x9F
		}
	case c == 0xF0:
		v.sub, v.lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		v.sub = 3
	case c == 0xF4:
		v.sub, v.hi = 3, 0x8F
	default:
		v.strFail(at)
		return
	}
	v.start, v.state = at, refSUTF8
}

// strEnd finishes a string (a name or a value) whose closing quote ends
// just before end.
func (v *refValidator) strEnd(end int) {
	if end-v.strAt >= LongString {
		v.long = append(v.long, span{start: v.strAt, end: end})
	}
	if v.inName {
		v.inName = false
		if len(v.stack) == 1 && v.topObject {
			v.member.KeyEnd = end
		}
		v.state = refSColon
		return
	}
	v.valueEnd(end)
}

// valueEnd finishes a value ending just before end.
func (v *refValidator) valueEnd(end int) {
	if len(v.stack) == 1 && v.topObject {
		v.member.ValEnd = end
		v.members = append(v.members, v.member)
	}
	v.state = refSAfter
	if len(v.stack) == 0 {
		v.state = refSTrailing
	}
}

func refIsWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// byte1 takes one byte c at offset at outside string content.
func (v *refValidator) byte1(c byte, at int) {
	switch v.state {
	case refSDoc:
		if refIsWS(c) {
			return
		}
		if c == '{' {
			v.topObject = true
		}
		v.value(c, at)
	case refSValue:
		if !refIsWS(c) {
			v.value(c, at)
		}
	case refSObjFirst:
		switch {
		case refIsWS(c):
		case c == '}':
			v.stack = v.stack[:len(v.stack)-1]
			v.valueEnd(at + 1)
		default:
			v.name(c, at)
		}
	case refSArrFirst:
		switch {
		case refIsWS(c):
		case c == ']':
			v.stack = v.stack[:len(v.stack)-1]
			v.valueEnd(at + 1)
		default:
			v.value(c, at)
		}
	case refSKey:
		if !refIsWS(c) {
			v.name(c, at)
		}
	case refSColon:
		switch {
		case refIsWS(c):
		case c == ':':
			v.state = refSValue
		default:
			v.fail(at)
		}
	case refSAfter:
		top := v.stack[len(v.stack)-1]
		switch {
		case refIsWS(c):
		case c == top:
			v.stack = v.stack[:len(v.stack)-1]
			v.valueEnd(at + 1)
		case c != ',':
			v.fail(at)
		case top == '}':
			v.state = refSKey
		default:
			v.state = refSValue
		}
	case refSTrailing:
		if !refIsWS(c) {
			v.fail(at)
		}
	case refSEsc:
		v.escape(c, at)
	case refSUTF8:
		if c < v.lo || c > v.hi {
			v.strFail(v.start)
			if c == '"' {
				v.state = refSFailed
			}
			return
		}
		v.lo, v.hi = 0x80, 0xBF
		if v.sub--; v.sub == 0 {
			v.state = refSStr
		}
	case refSNum:
		v.number(c, at)
	case refSLit:
		if c != v.lit[v.sub] {
			v.fail(v.start)
			return
		}
		if v.sub++; int(v.sub) == len(v.lit) {
			v.valueEnd(at + 1)
		}
	}
}

// name begins a member name at at, or fails there.
func (v *refValidator) name(c byte, at int) {
	if c != '"' {
		v.fail(at)
		return
	}
	if len(v.stack) == 1 && v.topObject {
		v.member = Member{KeyStart: at}
	}
	v.inName, v.state, v.strAt = true, refSStr, at
}

// value begins the value whose first byte c is at at.
func (v *refValidator) value(c byte, at int) {
	if len(v.stack) == 1 && v.topObject {
		v.member.ValStart = at
	}
	switch {
	case c == '{':
		v.stack = append(v.stack, '}')
		v.state = refSObjFirst
	case c == '[':
		v.stack = append(v.stack, ']')
		v.state = refSArrFirst
	case c == '"':
		v.state, v.strAt = refSStr, at
	case c == '-':
		v.sub, v.state = refNumMinus, refSNum
	case c == '0':
		v.sub, v.state = refNumZero, refSNum
	case '1' <= c && c <= '9':
		v.sub, v.state = refNumInt, refSNum
	default:
		v.start, v.sub, v.state = at, 1, refSLit
		switch c {
		case 't':
			v.lit = "true"
		case 'f':
			v.lit = "false"
		case 'n':
			v.lit = "null"
		default:
			v.fail(at)
		}
	}
}

// escape takes byte c (at at) of the escape that began at v.start; v.sub
// is 0 right after the backslash, then 1 + the \u hex refDigits read.
func (v *refValidator) escape(c byte, at int) {
	if v.sub == 0 {
		switch {
		case c == 'u':
			v.sub = 1
		case refEscapeChar[c]:
			v.state = refSStr
		default:
			v.strFail(v.start)
			if c == '"' {
				v.state = refSFailed
			}
		}
		return
	}
	if refUnhex(c) < 0 {
		v.strFail(v.start)
		if c == '"' {
			v.state = refSFailed
		}
		return
	}
	if v.sub++; v.sub == 5 {
		v.state = refSStr
	}
}

// number takes byte c (at at) of a number, or ends it before c.
func (v *refValidator) number(c byte, at int) {
	digit := '0' <= c && c <= '9'
	switch v.sub {
	case refNumMinus:
		switch {
		case c == '0':
			v.sub = refNumZero
		case digit:
			v.sub = refNumInt
		default:
			v.fail(at)
		}
		return
	case refNumInt:
		if digit {
			return
		}
		fallthrough
	case refNumZero:
		switch c {
		case '.':
			v.sub = refNumDot
			return
		case 'e', 'E':
			v.sub = refNumE
			return
		}
	case refNumDot, refNumFrac:
		if digit {
			v.sub = refNumFrac
			return
		}
		if v.sub == refNumDot {
			v.fail(at)
			return
		}
		if c == 'e' || c == 'E' {
			v.sub = refNumE
			return
		}
	case refNumE, refNumESign:
		if digit {
			v.sub = refNumExp
			return
		}
		if v.sub == refNumE && (c == '+' || c == '-') {
			v.sub = refNumESign
			return
		}
		v.fail(at)
		return
	case refNumExp:
		if digit {
			return
		}
	}
	// c is past the number: the next refState takes it.
	v.valueEnd(at)
	v.byte1(c, at)
}

// End reports the verdict on the whole document fed, with Members'
// results: the top-level members (appended to dst) of a valid object;
// ErrNotObject for valid JSON that is not an object; a *SyntaxError at the
// same offset Members reports otherwise.
func (v *refValidator) End(dst []Member) ([]Member, error) {
	switch v.state {
	case refSFailed:
		return nil, syntaxError(v.errAt)
	case refSTrailing:
		if !v.topObject {
			return nil, ErrNotObject{}
		}
		return append(dst, v.members...), nil
	case refSNum:
		if v.sub == refNumZero || v.sub == refNumInt || v.sub == refNumFrac || v.sub == refNumExp {
			if v.valueEnd(v.off); v.state == refSTrailing {
				return v.End(dst)
			}
		}
	case refSLit:
		return nil, syntaxError(v.start)
	}
	return nil, syntaxError(v.off)
}

// refMarkStr is refMark with quotes marked too. Only the lowest refMark is exact.
func refMarkStr(w uint64) uint64 {
	q := w ^ (refLsb * '"')
	return refMark(w) | (q-refLsb)&^q&refMsb
}

// Document scans s.B, which must be one JSON object with only whitespace
// around it, calling value for each member in document order with the
// member's name (quotes included) and the index where its value starts;
// value returns the index just past the value (Skip skips it). Unless
// s.Trusted, everything value does not scan itself is validated. A document
// that is not JSON fails with *SyntaxError; one that is JSON but not an
// object, with ErrNotObject.
func (s *refScanner) Document(value func(keyStart, keyEnd, valStart int) (int, error)) error {
	b := s.B
	i := s.WS(0)
	if i >= len(b) {
		return syntaxError(i)
	}
	if b[i] != '{' {
		end, err := s.Value(i)
		if err != nil {
			return err
		}
		if end = s.WS(end); end != len(b) {
			return syntaxError(end)
		}
		return ErrNotObject{}
	}
	i = s.WS(i + 1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			keyStart := i
			keyEnd, v, err := s.Key(i)
			if err != nil {
				return err
			}
			if i, err = value(keyStart, keyEnd, v); err != nil {
				return err
			}
			i = s.WS(i)
			if i < len(b) && b[i] == ',' {
				i = s.WS(i + 1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return syntaxError(i)
		}
	}
	if i = s.WS(i); i != len(b) {
		return syntaxError(i)
	}
	return nil
}

// Members runs Document and appends every member to dst. A validating scan
// of a large document validates its second half on another goroutine (see
// refSplit) and returns only once that is done. (A Document callback that
// walks arrays itself, like the filter's, would never meet the refSplit, so
// only Members, whose values all go through Value, uses it.)
func (s *refScanner) Members(dst []Member) ([]Member, error) {
	if len(s.B) >= parallelFrom {
		s.split = refStartSplit(s.B)
		defer s.finish()
	}
	err := s.Document(func(keyStart, keyEnd, valStart int) (int, error) {
		end, err := s.Value(valStart)
		if err == nil {
			dst = append(dst, Member{KeyStart: keyStart, KeyEnd: keyEnd, ValStart: valStart, ValEnd: end})
		}
		return end, err
	})
	if err != nil {
		return nil, err
	}
	return dst, nil
}

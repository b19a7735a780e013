package jsonscan

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// Validator validates one JSON document fed to it in pieces, as they
// arrive, and finds its top-level members: the wire feeds it each read of
// a large frame from the pipe, so that when the frame's newline arrives
// only the last read is left to check (a validating pass over a 17 MiB
// tool result after it had fully arrived held every request behind it for
// about 22 ms).
//
// It accepts exactly what a validating Scanner's Members accepts on the
// concatenated pieces, and reports the same error at the same offset
// (RFC 8259, strings valid UTF-8 as utf8.DecodeRune decides, an
// unterminated string at the document's end even when a bad byte follows
// its last quote — Str looks for the closing quote first). The zero value
// is ready for a document; Reset makes it ready for another.
type Validator struct {
	off   int   // the document offset of the next byte fed
	state state // what the next byte may be
	sub   uint8 // the state's progress: bytes of a literal, escape or UTF-8 sequence
	stack []byte

	// start is where the literal, escape or UTF-8 sequence being read
	// began (an error in it is reported there).
	start int
	// lo and hi bound the next continuation byte of a UTF-8 sequence.
	lo, hi byte
	lit    string
	inName bool // the string being read is a member name
	// line is set while WriteLine feeds: a newline ends what is fed.
	line bool

	topObject bool
	member    Member // the top-level member being read
	members   []Member
	// inner are the members of the top-level members' object values
	// (see Inner), innerOf the index in members of the one each belongs
	// to, and objects the indexes of the top-level members whose value
	// is an object.
	innerMember Member
	inner       []Member
	innerOf     []int
	objects     []int

	errAt int // where the document stops being JSON, once known

	strAt int // where the string being read began (its quote)
	// strPlain says the string being read has been printable ASCII
	// without escapes so far.
	strPlain bool
	strs     []span // the strings of LongString bytes or more read so far (see Long, Follow)
	// live, once Follow has bound spans to the document, is where Publish
	// shows them strs[:published].
	live      *liveSpans
	liveBuf   []byte // the buffer live is bound to, up to its capacity
	published int
}

type state uint8

const (
	sDoc      state = iota // before the document: whitespace, then a value
	sValue                 // a value (whitespace first)
	sObjFirst              // after '{': a name or '}'
	sArrFirst              // after '[': a value or ']'
	sKey                   // after ',' in an object: a name
	sColon                 // after a name: ':'
	sAfter                 // after a value: ',' or a closer (or the end)
	sTrailing              // after the document: whitespace only
	sStr                   // in a string's content
	sEsc                   // after a backslash in a string; sub counts \u hex digits + 1
	sUTF8                  // in a UTF-8 sequence; sub is the bytes still wanted
	sNum                   // in a number; sub is one of the num constants
	sLit                   // in true, false or null; sub is the bytes read
	sStrErr                // a string went bad at errAt: looking for any later quote
	sFailed                // errAt is final
)

// Number progress; the final ones (a number may end there) are numZero,
// numInt, numFrac and numExp.
const (
	numMinus uint8 = iota
	numZero
	numInt
	numDot
	numFrac
	numE
	numESign
	numExp
)

// Reset readies v for a new document, keeping its buffers.
func (v *Validator) Reset() {
	strs := v.strs[:0]
	if v.live != nil {
		// Published: a follower may still read them while the next
		// document is validated.
		strs = nil
	}
	*v = Validator{stack: v.stack[:0], members: v.members[:0], strs: strs,
		inner: v.inner[:0], innerOf: v.innerOf[:0], objects: v.objects[:0]}
}

// Len is the number of bytes fed so far.
func (v *Validator) Len() int { return v.off }

// Failed reports whether the bytes fed so far are known not to begin a
// JSON document. Until it does, every byte fed is part of a prefix of
// some valid document, so a trusted scan may read them (the wire's
// followers do, while the frame still arrives).
func (v *Validator) Failed() bool { return v.state == sFailed || v.state == sStrErr }

// fail ends validation at offset at.
func (v *Validator) fail(at int) {
	v.errAt = at
	v.state = sFailed
}

// Write feeds the next bytes of the document. It never fails: the verdict
// comes from End.
func (v *Validator) Write(p []byte) {
	base := v.off
	v.off += len(p)
	v.run(p, 0, base)
}

// run validates p[i:], the bytes fed last (p[0] at document offset
// base), and returns where they end: len(p), or in line mode (see
// WriteLine) the index of p's first newline at or after i, which it does
// not take.
func (v *Validator) run(p []byte, i, base int) int {
	for i < len(p) && v.state != sFailed {
		switch v.state {
		case sStr:
			if i = v.str(p, i, base); v.line && v.state == sStr && i < len(p) {
				return i // str stopped at a newline
			}
		case sStrErr:
			rest := p[i:]
			end := len(p)
			if v.line {
				if k := bytes.IndexByte(rest, '\n'); k >= 0 {
					rest, end = rest[:k], i+k
				}
			}
			if bytes.IndexByte(rest, '"') >= 0 {
				v.state = sFailed // Str would find that quote and stop at errAt
			}
			return end
		default:
			if p[i] == '\n' && v.line {
				return i
			}
			v.byte1(p[i], base+i)
			i++
		}
	}
	if v.line && i < len(p) {
		// The document failed before p's end: the frame still ends at
		// the first newline.
		if k := bytes.IndexByte(p[i:], '\n'); k >= 0 {
			return i + k
		}
	}
	return len(p)
}

// str reads string content from p[i:] (at document offset base) up to
// the closing quote or the end of p, with the Scanner's loop (strBody):
// only a bad byte, or an escape or UTF-8 sequence that the read cuts
// short, goes on byte by byte (byte1).
func (v *Validator) str(p []byte, i, base int) int {
	i, plain := strBody(p, i)
	v.strPlain = v.strPlain && plain
	if i == len(p) {
		return i
	}
	switch c := p[i]; {
	case c == '"':
		v.strEnd(base + i + 1)
		return i + 1
	case c == '\\':
		v.strPlain = false
		v.start, v.sub, v.state = base+i, 0, sEsc
		return i + 1
	case c < 0x20:
		if c == '\n' && v.line {
			return i // the line ends inside the string: run stops here
		}
		v.strFail(base + i)
		return i
	default:
		v.strPlain = false
		v.utf8Start(c, base+i)
		return i + 1
	}
}

// plainStr reports printable ASCII other than a quote or a backslash.
func plainStr(c byte) bool { return c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' }

// escapeChar marks the characters that complete a two-byte escape.
var escapeChar = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// strFail records a bad byte in a string at at. Str would report it only
// if a quote follows somewhere (it finds the closing quote first); until
// one is seen the error stands at the end of the document.
func (v *Validator) strFail(at int) {
	v.errAt = at
	v.state = sStrErr
}

// utf8Start begins a multi-byte sequence whose first byte c, at offset
// at, is the last byte fed so far.
func (v *Validator) utf8Start(c byte, at int) {
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
	v.start, v.state = at, sUTF8
}

// strEnd finishes a string (a name or a value) whose closing quote ends
// just before end.
func (v *Validator) strEnd(end int) {
	if end-v.strAt >= LongString {
		v.strs = append(v.strs, span{start: v.strAt, end: end, plain: v.strPlain})
	}
	if v.inName {
		v.inName = false
		if len(v.stack) == 1 && v.topObject {
			v.member.KeyEnd = end
		} else if v.inObjectValue() {
			v.innerMember.KeyEnd = end
		}
		v.state = sColon
		return
	}
	v.valueEnd(end)
}

// valueEnd finishes a value ending just before end.
func (v *Validator) valueEnd(end int) {
	if len(v.stack) == 1 && v.topObject {
		v.member.ValEnd = end
		v.members = append(v.members, v.member)
	} else if v.inObjectValue() {
		v.innerMember.ValEnd = end
		v.inner = append(v.inner, v.innerMember)
		v.innerOf = append(v.innerOf, len(v.members))
	}
	v.state = sAfter
	if len(v.stack) == 0 {
		v.state = sTrailing
	}
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// byte1 takes one byte c at offset at outside string content.
func (v *Validator) byte1(c byte, at int) {
	switch v.state {
	case sDoc:
		if isWS(c) {
			return
		}
		if c == '{' {
			v.topObject = true
		}
		v.value(c, at)
	case sValue:
		if !isWS(c) {
			v.value(c, at)
		}
	case sObjFirst:
		switch {
		case isWS(c):
		case c == '}':
			v.stack = v.stack[:len(v.stack)-1]
			v.valueEnd(at + 1)
		default:
			v.name(c, at)
		}
	case sArrFirst:
		switch {
		case isWS(c):
		case c == ']':
			v.stack = v.stack[:len(v.stack)-1]
			v.valueEnd(at + 1)
		default:
			v.value(c, at)
		}
	case sKey:
		if !isWS(c) {
			v.name(c, at)
		}
	case sColon:
		switch {
		case isWS(c):
		case c == ':':
			v.state = sValue
		default:
			v.fail(at)
		}
	case sAfter:
		top := v.stack[len(v.stack)-1]
		switch {
		case isWS(c):
		case c == top:
			v.stack = v.stack[:len(v.stack)-1]
			v.valueEnd(at + 1)
		case c != ',':
			v.fail(at)
		case top == '}':
			v.state = sKey
		default:
			v.state = sValue
		}
	case sTrailing:
		if !isWS(c) {
			v.fail(at)
		}
	case sEsc:
		v.escape(c, at)
	case sUTF8:
		if c < v.lo || c > v.hi {
			v.strFail(v.start)
			if c == '"' {
				v.state = sFailed
			}
			return
		}
		v.lo, v.hi = 0x80, 0xBF
		if v.sub--; v.sub == 0 {
			v.state = sStr
		}
	case sNum:
		v.number(c, at)
	case sLit:
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
func (v *Validator) name(c byte, at int) {
	if c != '"' {
		v.fail(at)
		return
	}
	if len(v.stack) == 1 && v.topObject {
		v.member = Member{KeyStart: at}
	} else if v.inObjectValue() {
		v.innerMember = Member{KeyStart: at}
	}
	v.inName, v.state, v.strAt, v.strPlain = true, sStr, at, true
}

// value begins the value whose first byte c is at at.
func (v *Validator) value(c byte, at int) {
	if len(v.stack) == 1 && v.topObject {
		v.member.ValStart = at
		if c == '{' {
			v.objects = append(v.objects, len(v.members))
		}
	} else if v.inObjectValue() {
		v.innerMember.ValStart = at
	}
	switch {
	case c == '{':
		v.stack = append(v.stack, '}')
		v.state = sObjFirst
	case c == '[':
		v.stack = append(v.stack, ']')
		v.state = sArrFirst
	case c == '"':
		v.state, v.strAt, v.strPlain = sStr, at, true
	case c == '-':
		v.sub, v.state = numMinus, sNum
	case c == '0':
		v.sub, v.state = numZero, sNum
	case '1' <= c && c <= '9':
		v.sub, v.state = numInt, sNum
	default:
		v.start, v.sub, v.state = at, 1, sLit
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
// is 0 right after the backslash, then 1 + the \u hex digits read.
func (v *Validator) escape(c byte, at int) {
	if v.sub == 0 {
		switch {
		case c == 'u':
			v.sub = 1
		case escapeChar[c]:
			v.state = sStr
		default:
			v.strFail(v.start)
			if c == '"' {
				v.state = sFailed
			}
		}
		return
	}
	if unhex(c) < 0 {
		v.strFail(v.start)
		if c == '"' {
			v.state = sFailed
		}
		return
	}
	if v.sub++; v.sub == 5 {
		v.state = sStr
	}
}

// number takes byte c (at at) of a number, or ends it before c.
func (v *Validator) number(c byte, at int) {
	digit := '0' <= c && c <= '9'
	switch v.sub {
	case numMinus:
		switch {
		case c == '0':
			v.sub = numZero
		case digit:
			v.sub = numInt
		default:
			v.fail(at)
		}
		return
	case numInt:
		if digit {
			return
		}
		fallthrough
	case numZero:
		switch c {
		case '.':
			v.sub = numDot
			return
		case 'e', 'E':
			v.sub = numE
			return
		}
	case numDot, numFrac:
		if digit {
			v.sub = numFrac
			return
		}
		if v.sub == numDot {
			v.fail(at)
			return
		}
		if c == 'e' || c == 'E' {
			v.sub = numE
			return
		}
	case numE, numESign:
		if digit {
			v.sub = numExp
			return
		}
		if v.sub == numE && (c == '+' || c == '-') {
			v.sub = numESign
			return
		}
		v.fail(at)
		return
	case numExp:
		if digit {
			return
		}
	}
	// c is past the number: the next state takes it.
	v.valueEnd(at)
	v.byte1(c, at)
}

// End reports the verdict on the whole document fed, with Members'
// results: the top-level members (appended to dst) of a valid object;
// ErrNotObject for valid JSON that is not an object; a *SyntaxError at the
// same offset Members reports otherwise.
func (v *Validator) End(dst []Member) ([]Member, error) {
	switch v.state {
	case sFailed:
		return nil, syntaxError(v.errAt)
	case sTrailing:
		if !v.topObject {
			return nil, ErrNotObject{}
		}
		return append(dst, v.members...), nil
	case sNum:
		if v.sub == numZero || v.sub == numInt || v.sub == numFrac || v.sub == numExp {
			if v.valueEnd(v.off); v.state == sTrailing {
				return v.End(dst)
			}
		}
	case sLit:
		return nil, syntaxError(v.start)
	}
	return nil, syntaxError(v.off)
}

// markStr sets the high bit of every byte of w that needs a closer look in
// a string: control characters (they borrow below 0x20), quotes and
// backslashes (they borrow below 1 once xored), and non-ASCII (the high bit
// is already set). Only the lowest mark is exact; that is all strBody
// needs. No term masks out bytes that have the high bit set: w marks those
// anyway, so nine operations do.
func markStr(w uint64) uint64 {
	x := w ^ (lsb * '\\')
	q := w ^ (lsb * '"')
	return ((w - lsb*0x20) | (x - lsb) | (q - lsb) | w) & msb
}

// inObjectValue reports whether what is being read is directly inside the
// object value of a top-level member: a member of a request's params.
func (v *Validator) inObjectValue() bool {
	return len(v.stack) == 2 && v.stack[1] == '}' && v.topObject
}

// Inner returns, appended to dst, the members of the value of the k-th
// top-level member End reported, with offsets in the document as End's,
// when that value is an object: a frame's params, whose members a handler
// would otherwise find with a scan over all of a 64 MiB payload after the
// frame has arrived. ok is false when the value is not an object, or End
// did not find the document a valid object.
func (v *Validator) Inner(k int, dst []Member) (ms []Member, ok bool) {
	if v.state != sTrailing || !v.topObject || !slices.Contains(v.objects, k) {
		return dst, false
	}
	for i, of := range v.innerOf {
		if of == k {
			dst = append(dst, v.inner[i])
		}
	}
	return dst, true
}

package filter

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/continuity-dev/continuity/diag"
)

// scanner walks one payload. In validating mode every byte it passes is
// checked against RFC 8259 (strings must also be valid UTF-8); in trusted
// mode (Options.Prevalidated) it only finds where values end, which lets
// strings be skipped with a vectorised search for the closing quote. Either
// way it never decodes a value: ordinary content is only skipped.
type scanner struct {
	b       []byte
	trusted bool
	stack   []byte // closing brackets of the containers value is inside
	plain   bool   // the last string str skipped was printable ASCII without escapes
	tmp     []byte // scratch for decoding escaped keys and short values
}

// The SWAR constants let plain test eight bytes at a time.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// mark sets the high bit of every byte of w that needs a closer look in a
// string: control characters (they borrow below 0x20), non-ASCII (the high
// bit is already set) and backslashes. Only the lowest mark is exact; that
// is all plainPrefix needs.
func mark(w uint64) uint64 {
	x := w ^ (lsb * '\\')
	return ((w-lsb*0x20)&^w | w | (x-lsb)&^x) & msb
}

// plainPrefix returns the length of the longest prefix of seg that is
// printable ASCII without backslashes, testing 32 and then 8 bytes at a time.
func plainPrefix(seg []byte) int {
	i := 0
	// In dense text (code, logs) the next escape is usually a few words away.
	for ; i < 32 && i+8 <= len(seg); i += 8 {
		if m := mark(binary.LittleEndian.Uint64(seg[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i+32 <= len(seg); i += 32 {
		if mark(binary.LittleEndian.Uint64(seg[i:]))|mark(binary.LittleEndian.Uint64(seg[i+8:]))|
			mark(binary.LittleEndian.Uint64(seg[i+16:]))|mark(binary.LittleEndian.Uint64(seg[i+24:])) != 0 {
			break
		}
	}
	for ; i+8 <= len(seg); i += 8 {
		if m := mark(binary.LittleEndian.Uint64(seg[i:])); m != 0 {
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

func syntaxError(off int) error {
	return diag.Newf(diag.InvalidPayload, "payload is not valid JSON (byte %d)", off).With("offset", off)
}

// ws returns the index of the first non-whitespace byte at or after i.
func (s *scanner) ws(i int) int {
	for i < len(s.b) {
		switch s.b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// str skips the string whose opening quote is at i and returns the index
// just past its closing quote. It sets s.plain when the string is printable
// ASCII without escapes, so its value is its bytes and its UTF-16 length is
// its byte length. The closing quote is found with the vectorised
// bytes.IndexByte and the bytes before it are checked eight at a time, so a
// base64 ciphertext or a 17 MiB tool output is read about twice at memory
// speed; only blocks holding escapes, control characters or non-ASCII are
// looked at byte by byte.
func (s *scanner) str(i int) (int, error) {
	s.plain = false
	if s.trusted {
		return s.trustedStr(i)
	}
	b := s.b
	i++
	q := -1 // the next quote at or after i, once searched
	simple := true
	for {
		if q < i {
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				return 0, syntaxError(len(b))
			}
			q = i + j
		}
		i += plainPrefix(b[i:q])
		if i == q {
			s.plain = simple
			return q + 1, nil
		}
		simple = false
		switch c := b[i]; {
		case c == '\\':
			if i+1 < q && shortEscape[b[i+1]] {
				i += 2
				continue
			}
			n := escapeLen(b[i:])
			if n == 0 {
				return 0, syntaxError(i)
			}
			i += n
		case c < 0x20:
			return 0, syntaxError(i)
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

// shortEscape marks the characters that complete a two-byte escape. An
// escaped quote is left to escapeLen: it may be the quote str found.
var shortEscape = [256]bool{'\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// escapeLen returns the length of the valid escape sequence at the start of
// b (which begins with a backslash), or 0 when it is malformed.
func escapeLen(b []byte) int {
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
			if unhex(h) < 0 {
				return 0
			}
		}
		return 6
	}
	return 0
}

// unhex returns the value of one hexadecimal digit, or -1.
func unhex(c byte) int {
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

// trustedStr finds the closing quote of an already validated string: the
// first quote preceded by an even number of backslashes.
func (s *scanner) trustedStr(i int) (int, error) {
	b := s.b
	start := i + 1
	i = start
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, syntaxError(len(b))
		}
		i += j
		k := i - 1
		for k >= start && b[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1, nil
		}
		i++
	}
}

// num skips the number starting at i.
func (s *scanner) num(i int) (int, error) {
	b := s.b
	if s.trusted {
		for i < len(b) && (b[i] == '-' || b[i] == '+' || b[i] == '.' || b[i] == 'e' || b[i] == 'E' || '0' <= b[i] && b[i] <= '9') {
			i++
		}
		return i, nil
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return 0, syntaxError(i)
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
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
		j := digits(b, i)
		if j == i {
			return 0, syntaxError(j)
		}
		i = j
	}
	return i, nil
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// lit skips one of the literals true, false and null.
func (s *scanner) lit(i int) (int, error) {
	for _, w := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(s.b[i:], []byte(w)) {
			return i + len(w), nil
		}
	}
	return 0, syntaxError(i)
}

// key skips the member name at i (which must be a string), the colon and
// the whitespace around it, returning the name's end and the value start.
func (s *scanner) key(i int) (keyEnd, valStart int, err error) {
	if i >= len(s.b) || s.b[i] != '"' {
		return 0, 0, syntaxError(i)
	}
	if keyEnd, err = s.str(i); err != nil {
		return 0, 0, err
	}
	i = s.ws(keyEnd)
	if i >= len(s.b) || s.b[i] != ':' {
		return 0, 0, syntaxError(i)
	}
	return keyEnd, s.ws(i + 1), nil
}

// value skips the value starting at i (a non-whitespace byte) and returns
// the index just past it. It keeps its own bracket stack instead of
// recursing, so arbitrarily deep nesting cannot exhaust the goroutine stack.
func (s *scanner) value(i int) (int, error) {
	b := s.b
	stack := s.stack[:0]
	defer func() { s.stack = stack[:0] }()
	var err error
	for {
		if i >= len(b) {
			return 0, syntaxError(i)
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			i = s.ws(i + 1)
			if i < len(b) && b[i] == closer {
				i++
				break
			}
			stack = append(stack, closer)
			if closer == '}' {
				if _, i, err = s.key(i); err != nil {
					return 0, err
				}
			}
			continue
		case c == '"':
			i, err = s.str(i)
		case c == '-' || '0' <= c && c <= '9':
			i, err = s.num(i)
		default:
			i, err = s.lit(i)
		}
		if err != nil {
			return 0, err
		}
		// After a complete value: close containers or move to the next element.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			i = s.ws(i)
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
			i = s.ws(i + 1)
			if top == '}' {
				if _, i, err = s.key(i); err != nil {
					return 0, err
				}
			}
			break
		}
	}
}

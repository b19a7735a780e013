package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Str skips the string whose opening quote is at i and returns the index
// just past its closing quote. It sets s.Plain when the string is printable
// ASCII without escapes, so its value is its bytes and its UTF-16 length is
// its byte length; a trusted scan knows that only of a string its Spans
// (Long) record, and reports every other one not plain. The content is
// checked a word at a time, a long run without escapes (a base64
// ciphertext) 64 bytes at a time in one pass (strBody).
func (s *Scanner) Str(i int) (int, error) {
	s.Plain = false
	if s.Trusted {
		return s.trustedStr(i)
	}
	b := s.B
	end, plain := strBody(b, i+1)
	switch {
	case end < len(b) && b[end] == '"':
		s.Plain = plain
		return end + 1, nil
	case end < len(b) && bytes.IndexByte(b[end:], '"') >= 0:
		// A bad byte: reported where it is when a quote follows (the
		// string's end was found), else the string is unterminated.
		return 0, syntaxError(end)
	}
	return 0, syntaxError(len(b))
}

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
// first quote preceded by an even number of backslashes, or, for a string
// the Validator recorded (s.Long), its span's end, with what the Validator
// learned of its content (Plain), without reading it.
func (s *Scanner) trustedStr(i int) (int, error) {
	if end, plain, ok := s.Long.strEnd(s.B, i, &s.longAt); ok {
		s.Plain = plain
		return end, nil
	}
	b := s.B
	if s.Long.unclosed(b, i) {
		return 0, syntaxError(len(b))
	}
	start := i + 1
	if end, ok := shortStrEnd(b, start); ok {
		return end, nil
	}
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

// shortStrEnd finds the end of a trusted string whose content starts at
// b[start] when its closing quote is in its first two words and no
// backslash precedes it: a name, a type, an id — most of a payload's
// strings, each otherwise a call to the vectorised search (a 64 MiB
// payload of reasoning steps has a quarter of a million of them). ok is
// false when it cannot tell; trustedStr's search decides then.
func shortStrEnd(b []byte, start int) (end int, ok bool) {
	for j := start; j < start+16 && j+8 <= len(b); j += 8 {
		q := binary.LittleEndian.Uint64(b[j:]) ^ (lsb * '"')
		// The lowest mark is exact: a borrow only marks bytes above a quote.
		if m := (q - lsb) &^ q & msb; m != 0 {
			k := j + bits.TrailingZeros64(m)>>3
			// b[k-1] is the opening quote when the string is empty.
			return k + 1, b[k-1] != '\\'
		}
	}
	return 0, false
}

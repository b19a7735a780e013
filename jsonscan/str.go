package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// The SWAR constants let mark test eight bytes at a time.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// markCtl is markStr without the quote and backslash tests, for segments
// already known to hold neither: control characters and non-ASCII only.
func markCtl(w uint64) uint64 {
	return ((w - lsb*0x20) | w) & msb
}

// printablePrefix returns the length of the longest prefix of seg that is
// printable ASCII; seg holds no backslash (a vectorised search found the
// next one), so the test per word is cheaper than mark's. Long runs (base64
// ciphertext and images) go 64 bytes per round.
func printablePrefix(seg []byte) int {
	i := 0
	for ; i+64 <= len(seg); i += 64 {
		w := seg[i : i+64 : i+64]
		if markCtl(binary.LittleEndian.Uint64(w))|markCtl(binary.LittleEndian.Uint64(w[8:]))|
			markCtl(binary.LittleEndian.Uint64(w[16:]))|markCtl(binary.LittleEndian.Uint64(w[24:]))|
			markCtl(binary.LittleEndian.Uint64(w[32:]))|markCtl(binary.LittleEndian.Uint64(w[40:]))|
			markCtl(binary.LittleEndian.Uint64(w[48:]))|markCtl(binary.LittleEndian.Uint64(w[56:])) != 0 {
			break
		}
	}
	for ; i+8 <= len(seg); i += 8 {
		if m := markCtl(binary.LittleEndian.Uint64(seg[i:])); m != 0 {
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
// its byte length; a trusted scan knows that only of a string its Spans
// (Long) record, and reports every other one not plain. The closing quote is found with the vectorised
// bytes.IndexByte and the bytes before it are checked eight at a time, so a
// base64 ciphertext or a 17 MiB tool output is read about twice at memory
// speed; only blocks holding escapes, control characters or non-ASCII are
// looked at byte by byte.
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

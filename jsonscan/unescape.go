package jsonscan

import (
	"bytes"
	"unicode/utf16"
)

// The fingerprint and every name comparison work on a string's value, not
// its spelling, so `"reas\u006fning"` is reasoning and two escapings of one
// ciphertext have one fingerprint. Values are decoded to WTF-8: ordinary
// UTF-8, except that an unpaired surrogate escape (`\ud800`) becomes its
// own three-byte sequence instead of U+FFFD, so distinct code-unit strings
// never collide.

// AppendEscape decodes the escape sequence at the start of raw (which
// begins with a backslash) onto dst and returns dst and the bytes consumed;
// consumed is 0 when the sequence is malformed. A high surrogate followed
// by a low-surrogate escape is decoded as one supplementary character.
func AppendEscape(dst, raw []byte) ([]byte, int) {
	n := escapeLen(raw)
	switch {
	case n == 0:
		return dst, 0
	case n == 2:
		return append(dst, unescapeByte(raw[1])), 2
	}
	u := hex4(raw[2:6])
	if utf16.IsSurrogate(rune(u)) && u < 0xDC00 && escapeLen(raw[6:]) == 6 && raw[7] == 'u' {
		if lo := hex4(raw[8:12]); 0xDC00 <= lo && lo <= 0xDFFF {
			return appendWTF8(dst, utf16.DecodeRune(rune(u), rune(lo))), 12
		}
	}
	return appendWTF8(dst, rune(u)), 6
}

func unescapeByte(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\', '/'
}

func hex4(h []byte) int {
	return unhex(h[0])<<12 | unhex(h[1])<<8 | unhex(h[2])<<4 | unhex(h[3])
}

// appendWTF8 encodes r like UTF-8 but also encodes surrogate code points
// (which utf8.AppendRune would replace with U+FFFD).
func appendWTF8(dst []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(dst, byte(r))
	case r < 0x800:
		return append(dst, 0xC0|byte(r>>6), 0x80|byte(r)&0x3F)
	case r < 0x10000:
		return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return append(dst, 0xF0|byte(r>>18), 0x80|byte(r>>12)&0x3F, 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// Decoded returns the value of the JSON string content raw (without its
// quotes): raw itself when it has no escapes, otherwise a decoding into the
// Scanner's scratch buffer, valid until the next call. ok is false when an
// escape is malformed, which only trusted input can reach.
func (s *Scanner) Decoded(raw []byte) (v []byte, ok bool) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw, true
	}
	out := s.tmp[:0]
	for len(raw) > 0 {
		j := bytes.IndexByte(raw, '\\')
		if j < 0 {
			out = append(out, raw...)
			break
		}
		out = append(out, raw[:j]...)
		var n int
		if out, n = AppendEscape(out, raw[j:]); n == 0 {
			return nil, false
		}
		raw = raw[j+n:]
	}
	s.tmp = out
	return out, true
}

// StrIs reports whether the JSON string value whose raw bytes (with quotes)
// are raw equals want. A value that is not a string never matches.
func (s *Scanner) StrIs(raw []byte, want string) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	v, ok := s.Decoded(raw[1 : len(raw)-1])
	return ok && string(v) == want
}

package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// The SWAR constants let markStr test eight bytes at a time.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// strBody returns the end of the string content that starts at b[i]: the
// index of the first byte at or after i that is not printable ASCII, a
// complete valid escape or a complete valid UTF-8 sequence. That is the
// closing quote, a bad byte, the start of an escape or UTF-8 sequence that
// b cuts short, or len(b). plain reports that only printable ASCII was
// passed (no escape, no non-ASCII).
//
// It is the one validating loop over string bodies, for the Scanner (b is
// the document) and the Validator (b is one read): escape-dense text
// (tool output has an escape every 18 bytes or so, and runs of CJK) is
// tested a word at a time, with escapes and UTF-8 sequences checked in
// place, without a call per escape; a long run without any (base64
// ciphertext, images) goes to plainRun, 64 bytes per round.
func strBody(b []byte, i int) (end int, plain bool) {
	plain = true
	clean := 0
	for {
		if i+8 <= len(b) {
			m := markStr(binary.LittleEndian.Uint64(b[i:]))
			if m == 0 {
				i += 8
				if clean++; clean == 8 {
					i = plainRun(b, i)
					clean = 0
				}
				continue
			}
			// The lowest mark is exact: the switch takes the byte it
			// marks, with no byte loop first. Only the last bytes of b,
			// fewer than a word, are tested one at a time.
			i += bits.TrailingZeros64(m) >> 3
			clean = 0
		} else {
			for i < len(b) && plainStr(b[i]) {
				i++
			}
			if i >= len(b) {
				return i, plain
			}
		}
		switch c := b[i]; {
		case c == '\\':
			plain = false
			if i+1 < len(b) && escapeChar[b[i+1]] {
				i += 2
				// Escapes come in runs (\n\t\t, \"\"): the next one is
				// taken here, not found again by a word test.
				for i+1 < len(b) && b[i] == '\\' && escapeChar[b[i+1]] {
					i += 2
				}
				continue
			}
			if i+6 <= len(b) && b[i+1] == 'u' && hex4Valid(b[i+2:i+6]) {
				i += 6
				continue
			}
			return i, false
		case c < 0x80: // the quote, or a control character
			return i, plain
		default:
			plain = false
			for { // a run of non-ASCII text, e.g. CJK comments
				if i+4 <= len(b) {
					// The common three-byte sequence (CJK, punctuation
					// such as dashes and quotes), tested in one load:
					// a lead byte E1-EC or EE-EF and two continuation
					// bytes. E0 and ED narrow the second byte's range
					// (overlongs, surrogates): utf8Len decides those.
					w := binary.LittleEndian.Uint32(b[i:])
					if w&0xC0C0F0 == 0x8080E0 && byte(w) != 0xE0 && byte(w) != 0xED {
						if i += 3; w>>31 == 0 {
							break
						}
						continue
					}
				}
				n := utf8Len(b[i:])
				if n == 0 {
					return i, false
				}
				if i += n; i >= len(b) || b[i] < 0x80 {
					break
				}
			}
		}
	}
}

// plainRun returns the index of the first byte at or after i that is not
// printable ASCII other than a quote or a backslash, or len(b). It is the
// one pass over a long run without escapes (base64 ciphertext, images):
// 64 bytes per round with roughStr, six operations a word, and a block
// roughStr cannot clear (a space, say) checked again exactly with markStr.
// One pass matters more than the operations: a 64 MiB payload streams from
// memory, and searching it for the quote first with the vectorised
// bytes.IndexByte, then for a backslash, then checking it, read each
// ciphertext three times and took about a quarter longer.
func plainRun(b []byte, i int) int {
	for ; i+64 <= len(b); i += 64 {
		w := b[i : i+64 : i+64]
		if (roughStr(binary.LittleEndian.Uint64(w))|roughStr(binary.LittleEndian.Uint64(w[8:]))|
			roughStr(binary.LittleEndian.Uint64(w[16:]))|roughStr(binary.LittleEndian.Uint64(w[24:]))|
			roughStr(binary.LittleEndian.Uint64(w[32:]))|roughStr(binary.LittleEndian.Uint64(w[40:]))|
			roughStr(binary.LittleEndian.Uint64(w[48:]))|roughStr(binary.LittleEndian.Uint64(w[56:])))&msb == 0 {
			continue
		}
		if markStr(binary.LittleEndian.Uint64(w))|markStr(binary.LittleEndian.Uint64(w[8:]))|
			markStr(binary.LittleEndian.Uint64(w[16:]))|markStr(binary.LittleEndian.Uint64(w[24:]))|
			markStr(binary.LittleEndian.Uint64(w[32:]))|markStr(binary.LittleEndian.Uint64(w[40:]))|
			markStr(binary.LittleEndian.Uint64(w[48:]))|markStr(binary.LittleEndian.Uint64(w[56:])) != 0 {
			break
		}
	}
	for ; i+8 <= len(b); i += 8 {
		if m := markStr(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && plainStr(b[i]) {
		i++
	}
	return i
}

// roughStr sets the high bit of some byte of w when w holds a byte below
// 0x23 (control characters and the quote, but also space and '!'), a
// backslash or non-ASCII: markStr's test with the quote folded into the
// control characters' range, a third fewer operations. It is only ever
// tested as a whole (the borrows make single marks inexact).
func roughStr(w uint64) uint64 {
	return (w - lsb*0x23) | w | ((w ^ (lsb * '\\')) - lsb)
}

// hex4Valid reports four hexadecimal digits.
func hex4Valid(h []byte) bool {
	_ = h[3]
	return hexDigit[h[0]] && hexDigit[h[1]] && hexDigit[h[2]] && hexDigit[h[3]]
}

var hexDigit = [256]bool{
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true,
	'A': true, 'B': true, 'C': true, 'D': true, 'E': true, 'F': true,
}

// utf8Len returns the length of the valid UTF-8 sequence at the start of
// b (whose first byte is not ASCII), or 0 when it is not one or b cuts it
// short. Valid is what utf8.DecodeRune decides: no overlong forms, no
// surrogates, nothing past U+10FFFF.
func utf8Len(b []byte) int {
	x := utf8First[b[0]]
	n := int(x & 7)
	if n == 0 || len(b) < n {
		return 0
	}
	r := utf8Accept[x>>4]
	if c := b[1]; c < r.lo || r.hi < c {
		return 0
	}
	switch n {
	case 2:
		return 2
	case 3:
		if b[2]&0xC0 != 0x80 {
			return 0
		}
		return 3
	}
	if b[2]&0xC0 != 0x80 || b[3]&0xC0 != 0x80 {
		return 0
	}
	return 4
}

// utf8Accept are the ranges of a sequence's second byte; utf8First names
// one (high nibble) and the sequence's length (low bits) for each first
// byte, 0 for a byte that cannot start one.
var utf8Accept = [5]struct{ lo, hi byte }{
	{0x80, 0xBF}, {0xA0, 0xBF}, {0x80, 0x9F}, {0x90, 0xBF}, {0x80, 0x8F},
}

var utf8First = func() (t [256]uint8) {
	for c := 0xC2; c <= 0xDF; c++ {
		t[c] = 2
	}
	for c := 0xE0; c <= 0xEF; c++ {
		t[c] = 3
	}
	t[0xE0] = 1<<4 | 3
	t[0xED] = 2<<4 | 3
	for c := 0xF0; c <= 0xF4; c++ {
		t[c] = 4
	}
	t[0xF0] = 3<<4 | 4
	t[0xF4] = 4<<4 | 4
	return t
}()

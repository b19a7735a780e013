package strictjson

import (
	"bytes"
	"strings"
)

// A validator turns a number into an exact rational to check it (JSON
// Schema's integer type, minimum, multipleOf, enum): jsonschema v5 crashes
// on an exponent above 10^6 and takes time quadratic in the digits. So a
// literal longer than MaxNumberBytes, or with an exponent of more than
// three digits, is shown to the validator as a bounded stand-in computed
// from its spelling alone, in time linear in it:
//
//   - zero (however written) is 0;
//   - a magnitude of 10^64 or more is ±1e100 (written out), with ".5" when
//     the value is not an integer;
//   - anything else keeps its integer part exactly and the first 20 digits
//     of its fraction, plus a final 1 when later digits are not all zero.
//
// The stand-in has the value's sign and integer-ness, and compares with
// any bound of at most 64 integer and 20 fraction digits (every bound in
// the schemas) as the value does; it never equals a short constant the
// value differs from. Nothing is refused for its spelling: a long id or a
// number in a member nobody reads passes, and an out-of-range value fails
// the schema's bounds or the decoder of the member that needs it.
const (
	MaxNumberBytes = 64
	hugeDigits     = 64 // integer digits from which a value is "huge"
	fractionDigits = 20
)

// forValidator returns lit itself when it is short, else its stand-in.
func forValidator(lit []byte) string {
	if len(lit) <= MaxNumberBytes && shortExponent(lit) {
		return view(lit)
	}
	return standIn(lit)
}

// shortExponent reports whether lit's exponent, if any, has at most three
// digits after its leading zeros.
func shortExponent(lit []byte) bool {
	k := bytes.IndexAny(lit, "eE")
	if k < 0 {
		return true
	}
	exp := bytes.TrimLeft(bytes.TrimLeft(lit[k+1:], "+-"), "0")
	return len(exp) <= 3
}

// standIn computes the bounded stand-in of a valid number literal.
func standIn(lit []byte) string {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	mant, exp := lit, int64(0)
	if k := bytes.IndexAny(lit, "eE"); k >= 0 {
		mant, exp = lit[:k], exponent(lit[k+1:])
	}
	whole, frac := mant, []byte(nil)
	if k := bytes.IndexByte(mant, '.'); k >= 0 {
		whole, frac = mant[:k], mant[k+1:]
	}
	d := digits{whole, frac}
	first, last := d.firstNonzero(), d.lastNonzero()
	if first < 0 {
		return "0"
	}
	point := int64(len(whole)) + exp // digits before the decimal point
	integer := last < point
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if point-first > hugeDigits {
		b.WriteString("1" + strings.Repeat("0", 100))
		if !integer {
			b.WriteString(".5")
		}
		return b.String()
	}
	if point <= first {
		b.WriteByte('0')
	}
	for i := first; i < point; i++ {
		b.WriteByte(d.at(i))
	}
	if integer {
		return b.String()
	}
	b.WriteByte('.')
	end := point + fractionDigits
	if last < end {
		end = last + 1
	}
	for i := point; i < end; i++ {
		b.WriteByte(d.at(i))
	}
	if last >= point+fractionDigits {
		b.WriteByte('1')
	}
	return b.String()
}

// exponent reads an exponent's digits, clamped to ±10^9 (far past any
// position a stand-in looks at).
func exponent(e []byte) int64 {
	neg := len(e) > 0 && e[0] == '-'
	e = bytes.TrimLeft(bytes.TrimLeft(e, "+-"), "0")
	var n int64
	for _, c := range e {
		if n = n*10 + int64(c-'0'); n > 1e9 {
			n = 1e9
			break
		}
	}
	if neg {
		return -n
	}
	return n
}

// digits is a mantissa's digits, its whole part followed by its fraction,
// indexed from the first digit of the whole part.
type digits struct{ whole, frac []byte }

func (d digits) at(i int64) byte {
	switch {
	case i < 0:
		return '0'
	case i < int64(len(d.whole)):
		return d.whole[i]
	case i < int64(len(d.whole)+len(d.frac)):
		return d.frac[i-int64(len(d.whole))]
	}
	return '0'
}

func (d digits) firstNonzero() int64 {
	for i := int64(0); i < int64(len(d.whole)+len(d.frac)); i++ {
		if d.at(i) != '0' {
			return i
		}
	}
	return -1
}

func (d digits) lastNonzero() int64 {
	for i := int64(len(d.whole)+len(d.frac)) - 1; i >= 0; i-- {
		if d.at(i) != '0' {
			return i
		}
	}
	return -1
}

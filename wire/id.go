package wire

import (
	"errors"

	"github.com/continuity-dev/continuity/jsonscan"
)

// ID is a request id exactly as the client sent it. JSON-RPC 2.0 lets an
// id be any string or number, and the library's own ID type (a uint64 or a
// Go string) can hold neither a negative number nor a string with a lone
// surrogate escape: it would refuse the first and turn `"a\ud800"` and
// `"a\udbff"` into one U+FFFD string, so two sessions' requests would
// alias. An ID keeps the client's bytes, echoed in the reply verbatim, and
// a key that compares ids by value: strings decoded to WTF-8 (a lone
// surrogate keeps its own code point), integers by their digits.
type ID struct {
	raw string
	key string
}

// errIDType and errIDNumber name why an id was refused, without its value.
var (
	errIDType   = errors.New("invalid request: id must be a string or a number")
	errIDNumber = errors.New("invalid request: a numeric id must be an integer (no fraction or exponent)")
)

// ParseID reads an id from its JSON bytes (already validated as JSON). The
// bytes are copied: an ID outlives the frame it came in.
func ParseID(raw []byte) (ID, error) {
	if len(raw) == 0 {
		return ID{}, errIDType
	}
	switch c := raw[0]; {
	case c == '"':
		var sc jsonscan.Scanner
		v, ok := sc.Decoded(raw[1 : len(raw)-1])
		if !ok {
			return ID{}, errIDType
		}
		return ID{raw: string(raw), key: "s" + string(v)}, nil
	case c == '-' || '0' <= c && c <= '9':
		digits := raw
		if c == '-' {
			digits = raw[1:]
		}
		for _, d := range digits {
			if d < '0' || d > '9' {
				return ID{}, errIDNumber
			}
		}
		if len(digits) == 0 {
			return ID{}, errIDNumber
		}
		key := "n" + string(raw)
		if string(digits) == "0" {
			key = "n0" // -0 is 0
		}
		return ID{raw: string(raw), key: key}, nil
	}
	return ID{}, errIDType
}

// Key compares ids by value; use it to index requests in flight.
func (id ID) Key() string { return id.key }

// IsZero reports an ID that was never parsed (a notification has none).
func (id ID) IsZero() bool { return id.raw == "" }

// MarshalJSON writes the id as the client sent it.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

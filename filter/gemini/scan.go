package gemini

import (
	"errors"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/jsonscan"
)

// Bounds of one payload.
const (
	MaxContents       = 65536    // contents, else INVALID_PAYLOAD
	MaxParts          = 1 << 18  // parts across all contents, else INVALID_PAYLOAD
	MaxSignatures     = 16384    // thoughtSignature members, else ITEM_LIMIT
	MaxSignatureBytes = 64 << 20 // signature bytes hashed, else REASONING_WORK_LIMIT
)

// Sentinel is the thoughtSignature Google documents for a model turn that
// reaches Gemini 3 without a valid signature of its own; gemini-cli 0.61.0
// sends it itself (SYNTHETIC_THOUGHT_SIGNATURE) for resumed function calls.
const Sentinel = "skip_thought_signature_validator"

// span is a half-open byte range of the payload.
type span struct{ start, end int }

// content is one element of the payload's contents.
type content struct {
	span
	user       bool // role "user", or no role (Gemini's default)
	message    bool // a user content with text and no function response: a turn starts
	first, n   int  // its parts: Doc.parts[first : first+n]
	partsFound bool
}

// part is one element of a content's parts.
type part struct {
	span
	content      int
	thought      bool // thought: true
	functionCall bool
	response     bool // functionResponse
	text         span // the text member's value, quotes included; zero when none
	// sig is the thoughtSignature member's value (quotes included) and
	// sigKey its name's start; sigPrev the end of the member before it and
	// sigNext the start of the member after it, -1 when none: the member is
	// cut with the comma on one side.
	sig              span
	sigKey           int
	sigPrev, sigNext int
}

// Doc is a validated Gemini request payload, indexed: its contents and
// their parts, as byte ranges of the payload it was scanned from, which it
// only reads and must not outlive.
type Doc struct {
	payload  []byte
	contents []content
	parts    []part
	sigs     int
	// current is the index of the first content of the current turn.
	current int
}

// Scan validates payload as one JSON object and indexes its contents. A
// payload that is not JSON, not an object, repeats a member the filter
// reads, or passes a bound fails with a named diagnostic.
func Scan(payload []byte) (*Doc, error) {
	d := &Doc{payload: payload}
	s := &jsonscan.Scanner{B: payload}
	seen := false
	err := s.Document(func(keyStart, keyEnd, v int) (int, error) {
		if !s.StrIs(payload[keyStart:keyEnd], "contents") {
			return s.Value(v)
		}
		if seen {
			return 0, diag.New(diag.InvalidPayload, "payload has more than one contents member")
		}
		seen = true
		return d.scanContents(s, v)
	})
	if err != nil {
		var no jsonscan.ErrNotObject
		if errors.As(err, &no) {
			return nil, diag.New(diag.InvalidPayload, "payload is not a JSON object")
		}
		return nil, named(err)
	}
	d.current = d.currentTurn()
	return d, nil
}

// named turns the scanner's syntax errors into INVALID_PAYLOAD and passes
// every other (already named) error through.
func named(err error) error {
	var se *jsonscan.SyntaxError
	if errors.As(err, &se) {
		return diag.Newf(diag.InvalidPayload, "payload is not valid JSON (byte %d)", se.Offset).With("offset", se.Offset)
	}
	return err
}

// scanContents indexes the contents array at i and returns its end.
func (d *Doc) scanContents(s *jsonscan.Scanner, i int) (int, error) {
	return elements(s, i, "contents", func(j int) (int, error) {
		if len(d.contents) == MaxContents {
			return 0, diag.Newf(diag.InvalidPayload, "payload has more than %d contents", MaxContents).With("limit", MaxContents)
		}
		return d.scanContent(s, j)
	})
}

// elements walks the array at i, calling elem at the start of each element
// (which returns its end); what names the array in errors.
func elements(s *jsonscan.Scanner, i int, what string, elem func(int) (int, error)) (int, error) {
	b := s.B
	if i >= len(b) {
		return 0, &jsonscan.SyntaxError{Offset: i}
	}
	if b[i] != '[' {
		return 0, diag.Newf(diag.InvalidPayload, "payload %s is not an array", what)
	}
	i = s.WS(i + 1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := elem(i)
		if err != nil {
			return 0, err
		}
		i = s.WS(end)
		if i >= len(b) {
			return 0, &jsonscan.SyntaxError{Offset: i}
		}
		switch b[i] {
		case ']':
			return i + 1, nil
		case ',':
			i = s.WS(i + 1)
		default:
			return 0, &jsonscan.SyntaxError{Offset: i}
		}
	}
}

// members walks the object at i, calling member with each name (quotes
// included) and value start (it returns the value's end); what names the
// object in errors.
func members(s *jsonscan.Scanner, i int, what func() string, member func(keyStart, keyEnd, v int) (int, error)) (int, error) {
	b := s.B
	if i >= len(b) {
		return 0, &jsonscan.SyntaxError{Offset: i}
	}
	if b[i] != '{' {
		return 0, diag.Newf(diag.InvalidPayload, "%s is not an object", what())
	}
	i = s.WS(i + 1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		keyEnd, v, err := s.Key(i)
		if err != nil {
			return 0, err
		}
		end, err := member(i, keyEnd, v)
		if err != nil {
			return 0, err
		}
		i = s.WS(end)
		if i >= len(b) {
			return 0, &jsonscan.SyntaxError{Offset: i}
		}
		switch b[i] {
		case '}':
			return i + 1, nil
		case ',':
			i = s.WS(i + 1)
		default:
			return 0, &jsonscan.SyntaxError{Offset: i}
		}
	}
}

// Package strictjson reads JSON from outside exactly, or refuses it with a
// named reason: a member name that appears twice in one object (at any
// depth), nesting past MaxDepth, or anything that is not RFC 8259 JSON in
// valid UTF-8.
//
// It exists because the general decoders are lenient where continuity must
// not be: encoding/json keeps the last copy of a duplicated member (and
// gjson the first, so two readers of one frame can disagree), turns a lone
// surrogate escape into U+FFFD (so "a\ud800" and "a\udbff" become the same
// id), and a schema validator that turns an unbounded number literal into a
// big.Rat crashes on 1e1000001 and is quadratic in its digits. Here strings
// are decoded to WTF-8 (a lone surrogate keeps its own code point, see
// jsonscan), a validator is shown a bounded stand-in for a long number
// literal (see number.go), and the walk is linear in the document.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/continuity-dev/continuity/jsonscan"
)

// MaxDepth bounds nesting, as encoding/json does.
const MaxDepth = 10000

// Error says where a document is not exact JSON and why. Pointer is an RFC
// 6901 JSON Pointer ("" is the whole document) with long member names
// clipped; Reason never holds a value from the document.
type Error struct {
	Pointer string
	Reason  string
}

func (e *Error) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return p + ": " + e.Reason
}

// Reasons, so that callers and tests can tell them apart with errors.Is.
var (
	ErrDuplicate = errors.New("a member name appears more than once")
	ErrDepth     = errors.New("nesting deeper than " + strconv.Itoa(MaxDepth) + " levels")
	ErrSyntax    = errors.New("not JSON")
)

// Is lets errors.Is match an *Error against its reason.
func (e *Error) Is(target error) bool { return e.Reason == target.Error() }

// Check reports the first place where doc is not exact JSON, or nil.
func Check(doc []byte) error {
	d := decoder{sc: jsonscan.Scanner{B: doc}}
	return d.document()
}

// Borrowed is a document decoded into the shapes JSON Schema validators
// walk: map[string]any, []any, string, json.Number, bool and nil. Strings
// and numbers without escapes share the document's memory (a 64 MiB member
// is not copied to be checked), so a Borrowed value must not outlive or be
// kept beyond the document it was decoded from, and the document must not
// change while it is used. Strings are WTF-8: a lone surrogate escape is
// its own three-byte sequence, so such a string is not valid UTF-8.
type Borrowed struct{ v any }

// Value is the decoded tree; see Borrowed for how long it may be used.
func (b Borrowed) Value() any { return b.v }

// Decode decodes doc strictly (see Check) into a Borrowed tree.
func Decode(doc []byte) (Borrowed, error) {
	d := decoder{sc: jsonscan.Scanner{B: doc}, build: true}
	if err := d.document(); err != nil {
		return Borrowed{}, err
	}
	return Borrowed{d.root}, nil
}

// decoder walks one document; with build it also makes the tree.
type decoder struct {
	sc    jsonscan.Scanner
	build bool
	root  any
	path  []string // member names and indexes down to the current value
}

func (d *decoder) document() error {
	b := d.sc.B
	i := d.sc.WS(0)
	if i >= len(b) {
		return d.fail(ErrSyntax)
	}
	v, end, err := d.value(i)
	if err != nil {
		return err
	}
	if d.sc.WS(end) != len(b) {
		return d.fail(ErrSyntax)
	}
	d.root = v
	return nil
}

// value decodes the value that starts at i (a non-whitespace byte) and
// returns it and the index just past it.
func (d *decoder) value(i int) (any, int, error) {
	b := d.sc.B
	if i >= len(b) {
		return nil, 0, d.fail(ErrSyntax)
	}
	switch c := b[i]; {
	case c == '{':
		return d.object(i)
	case c == '[':
		return d.array(i)
	case c == '"':
		end, err := d.sc.Str(i)
		if err != nil {
			return nil, 0, d.fail(ErrSyntax)
		}
		if !d.build {
			return nil, end, nil
		}
		return d.str(b[i+1 : end-1]), end, nil
	case c == '-' || '0' <= c && c <= '9':
		end, err := d.sc.Value(i)
		if err != nil {
			return nil, 0, d.fail(ErrSyntax)
		}
		if !d.build {
			return nil, end, nil
		}
		return json.Number(forValidator(b[i:end])), end, nil
	default:
		end, err := d.sc.Value(i)
		if err != nil {
			return nil, 0, d.fail(ErrSyntax)
		}
		switch string(b[i:end]) {
		case "true":
			return true, end, nil
		case "false":
			return false, end, nil
		}
		return nil, end, nil
	}
}

func (d *decoder) object(i int) (any, int, error) {
	if len(d.path) >= MaxDepth {
		return nil, 0, d.fail(ErrDepth)
	}
	b := d.sc.B
	var m map[string]any
	seen := map[string]struct{}{}
	if d.build {
		m = map[string]any{}
	}
	i = d.sc.WS(i + 1)
	if i < len(b) && b[i] == '}' {
		return m, i + 1, nil
	}
	for {
		keyEnd, valStart, err := d.sc.Key(i)
		if err != nil {
			return nil, 0, d.fail(ErrSyntax)
		}
		name := d.str(b[i+1 : keyEnd-1])
		d.path = append(d.path, name)
		if _, dup := seen[name]; dup {
			return nil, 0, d.fail(ErrDuplicate)
		}
		seen[name] = struct{}{}
		v, end, err := d.value(valStart)
		if err != nil {
			return nil, 0, err
		}
		d.path = d.path[:len(d.path)-1]
		if d.build {
			m[name] = v
		}
		i = d.sc.WS(end)
		switch {
		case i < len(b) && b[i] == ',':
			i = d.sc.WS(i + 1)
		case i < len(b) && b[i] == '}':
			return m, i + 1, nil
		default:
			return nil, 0, d.fail(ErrSyntax)
		}
	}
}

func (d *decoder) array(i int) (any, int, error) {
	if len(d.path) >= MaxDepth {
		return nil, 0, d.fail(ErrDepth)
	}
	b := d.sc.B
	var a []any
	if d.build {
		a = []any{}
	}
	i = d.sc.WS(i + 1)
	if i < len(b) && b[i] == ']' {
		return a, i + 1, nil
	}
	for n := 0; ; n++ {
		d.path = append(d.path, strconv.Itoa(n))
		v, end, err := d.value(i)
		if err != nil {
			return nil, 0, err
		}
		d.path = d.path[:len(d.path)-1]
		if d.build {
			a = append(a, v)
		}
		i = d.sc.WS(end)
		switch {
		case i < len(b) && b[i] == ',':
			i = d.sc.WS(i + 1)
		case i < len(b) && b[i] == ']':
			return a, i + 1, nil
		default:
			return nil, 0, d.fail(ErrSyntax)
		}
	}
}

// str returns the value of a string's content raw (quotes excluded, already
// validated): a view of the document when it has no escapes, otherwise a
// WTF-8 copy.
func (d *decoder) str(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return view(raw)
	}
	v, _ := d.sc.Decoded(raw)
	return string(v)
}

// fail is an *Error for reason at the current path.
func (d *decoder) fail(reason error) error {
	var p strings.Builder
	for _, seg := range d.path {
		p.WriteByte('/')
		p.WriteString(pointerSegment(seg))
	}
	return &Error{Pointer: p.String(), Reason: reason.Error()}
}

// maxPointerName clips member names in error pointers: a name is the
// client's text and may be long.
const maxPointerName = 64

// pointerSegment escapes a member name for a JSON Pointer and clips it to
// maxPointerName bytes (at a character boundary, marked with "…").
func pointerSegment(name string) string {
	if len(name) > maxPointerName {
		cut := maxPointerName
		for cut > 0 && name[cut]&0xC0 == 0x80 {
			cut--
		}
		name = name[:cut] + "…"
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(strings.ToValidUTF8(name, "\uFFFD"))
}

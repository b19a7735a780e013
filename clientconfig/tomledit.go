package clientconfig

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlDoc is a TOML document's bytes with where its tables and keys are,
// found by go-toml's parser, so an edit splices new values into the bytes
// instead of re-encoding the document (go-toml and BurntSushi/toml both
// drop comments when they encode, and no maintained Go TOML library edits
// in place). Only the shapes an edit needs are indexed: the top-level
// section and each [table] section with its one-part keys.
type tomlDoc struct {
	src      []byte
	nl       string
	sections []*tomlSection // sections[0] is the top level
	paths    [][]string     // every key's full dotted path, in order
	edits    []splice
	appended map[string]*appendedTable
}

// tomlSection is the top level or one [table]: where its header line ends
// and where its last key-value line ends, which is where a new key goes.
type tomlSection struct {
	header    []string
	array     bool // an [[array table]] entry
	headerEnd int  // offset after the header line (0 for the top level)
	lastEnd   int  // offset after the last key-value line, headerEnd if none
	keys      map[string]tomlValue
}

// tomlValue is where a one-part key's value lies.
type tomlValue struct {
	start, end int
	text       string // the raw value, e.g. "openai" with its quotes
}

type splice struct {
	at, end int
	text    string
}

type appendedTable struct {
	header []string
	lines  []string
}

// parseTOML checks src is a valid TOML document (go-toml's decoder: syntax,
// duplicate keys and tables) and indexes it.
func parseTOML(src []byte) (*tomlDoc, error) {
	var any map[string]any
	if err := toml.Unmarshal(src, &any); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%w: line %d, column %d: %s", ErrMalformed, row, col, de.Error())
		}
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	d := &tomlDoc{src: src, nl: "\n", appended: map[string]*appendedTable{}}
	if bytes.Contains(src, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	cur := &tomlSection{keys: map[string]tomlValue{}}
	d.sections = append(d.sections, cur)
	var p unstable.Parser
	p.Reset(src)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			parts, end := keyParts(e.Key())
			cur = &tomlSection{header: parts, array: e.Kind == unstable.ArrayTable, keys: map[string]tomlValue{}}
			cur.headerEnd = d.lineEnd(end)
			cur.lastEnd = cur.headerEnd
			d.sections = append(d.sections, cur)
		case unstable.KeyValue:
			parts, end := keyParts(e.Key())
			start := end
			for start < len(src) && (src[start] == ' ' || src[start] == '\t' || src[start] == '=') {
				start++
			}
			vend := int(e.Raw.Offset + e.Raw.Length)
			if len(parts) == 1 {
				cur.keys[parts[0]] = tomlValue{start: start, end: vend, text: string(src[start:vend])}
			}
			d.paths = append(d.paths, append(slices.Clone(cur.header), parts...))
			cur.lastEnd = d.lineEnd(vend)
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return d, nil
}

// keyParts returns a key's parts and the offset after its last part.
func keyParts(it unstable.Iterator) ([]string, int) {
	var parts []string
	end := 0
	for it.Next() {
		n := it.Node()
		parts = append(parts, string(n.Data))
		end = int(n.Raw.Offset + n.Raw.Length)
	}
	return parts, end
}

// lineEnd is the offset after the newline that ends the line holding i: a
// header or a value is followed on its line only by blanks and a comment.
func (d *tomlDoc) lineEnd(i int) int {
	if j := bytes.IndexByte(d.src[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(d.src)
}

// section returns the [header] section, nil when the document has none.
func (d *tomlDoc) section(header []string) *tomlSection {
	for _, s := range d.sections {
		if !s.array && slices.Equal(s.header, header) {
			return s
		}
	}
	return nil
}

// checkPlain reports ErrUnsupported when the table at header is (also)
// defined other than as a [header] section of one-part keys — an inline
// table or dotted keys elsewhere — which a splice could not edit safely.
func (d *tomlDoc) checkPlain(header []string) error {
	own := d.section(header)
	for _, p := range d.paths {
		if len(p) < len(header) || !slices.Equal(p[:len(header)], header) || len(p) > len(header)+1 {
			continue // elsewhere, or a key of a subtable such as [h.http_headers]
		}
		if own != nil && len(p) == len(header)+1 {
			if _, ok := own.keys[p[len(p)-1]]; ok {
				continue
			}
		}
		name := strings.Join(header, ".")
		how := "an inline table"
		if len(p) > len(header) {
			how = fmt.Sprintf("the dotted key %q", strings.Join(p, "."))
		}
		return fmt.Errorf("%w: %s is defined with %s; write it as a [%s] table of its own", ErrUnsupported, name, how, name)
	}
	return nil
}

// set makes key in the [header] section (nil: the top level) have the TOML
// value text. With ifAbsent an existing value stays as it is.
func (d *tomlDoc) set(header []string, key, text string, ifAbsent bool) {
	s := d.section(header)
	if header == nil {
		s = d.sections[0]
	}
	if s == nil {
		name := strings.Join(header, ".")
		t := d.appended[name]
		if t == nil {
			t = &appendedTable{header: header}
			d.appended[name] = t
		}
		t.lines = append(t.lines, key+" = "+text)
		return
	}
	if v, ok := s.keys[key]; ok {
		if !ifAbsent && v.text != text {
			d.edits = append(d.edits, splice{at: v.start, end: v.end, text: text})
		}
		return
	}
	at := s.lastEnd
	line := key + " = " + text + d.nl
	if at > 0 && d.src[at-1] != '\n' { // the last line of a file without a final newline
		line = d.nl + line
	}
	d.edits = append(d.edits, splice{at: at, end: at, text: line})
}

// bytes is the edited document.
func (d *tomlDoc) bytes() []byte {
	edits := slices.Clone(d.edits)
	slices.SortStableFunc(edits, func(a, b splice) int { return a.at - b.at })
	out := bytes.NewBuffer(splices(d.src, edits...))
	for _, name := range slices.Sorted(maps.Keys(d.appended)) {
		t := d.appended[name]
		if b := out.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			out.WriteString(d.nl)
		}
		if out.Len() > 0 {
			out.WriteString(d.nl)
		}
		out.WriteString("[" + name + "]" + d.nl)
		for _, l := range t.lines {
			out.WriteString(l + d.nl)
		}
	}
	return out.Bytes()
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

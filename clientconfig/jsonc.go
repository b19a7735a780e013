package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// jsoncSet returns src with the string at path set to value. src is JSON
// with comments and trailing commas (what opencode and pi read); the value
// is spliced in at the offsets tailscale/hujson's parser reports, so the
// rest of the file keeps its bytes. hujson's own Patch would do the edit but
// writes new members without the file's indentation and moves a comment
// that follows the last member; Format would re-indent the whole file.
func jsoncSet(src []byte, path []string, value string) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return newJSON(path, value), nil
	}
	root, err := hujson.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, strings.TrimPrefix(err.Error(), "hujson: "))
	}
	quoted, _ := json.Marshal(value)
	cur := &root
	for depth, name := range path {
		obj, ok := cur.Value.(*hujson.Object)
		if !ok {
			return nil, fmt.Errorf("%w: %s is not an object", ErrUnsupported, pointer(path[:depth]))
		}
		var next *hujson.Value
		for i := range obj.Members {
			m := &obj.Members[i]
			if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == name {
				if next != nil {
					return nil, fmt.Errorf("%w: %s appears twice", ErrMalformed, pointer(path[:depth+1]))
				}
				next = &m.Value
			}
		}
		if next == nil {
			return insertMember(src, cur, obj, depth, path[depth:], value), nil
		}
		cur = next
	}
	if lit, ok := cur.Value.(hujson.Literal); !ok || lit.Kind() != '"' {
		return nil, fmt.Errorf("%w: %s is not a string", ErrUnsupported, pointer(path))
	}
	if string(src[cur.StartOffset:cur.EndOffset]) == string(quoted) {
		return src, nil
	}
	return splices(src, splice{at: cur.StartOffset, end: cur.EndOffset, text: string(quoted)}), nil
}

// insertMember adds rest (the missing part of the path) with value as the
// last member of obj, the value at depth: after the last member's line,
// indented like that member (or one level deeper than its parent).
func insertMember(src []byte, v *hujson.Value, obj *hujson.Object, depth int, rest []string, value string) []byte {
	indent := strings.Repeat("  ", depth+1)
	if n := len(obj.Members); n > 0 {
		indent = lineIndent(src, obj.Members[0].Name.StartOffset, indent)
	}
	unit := "  "
	switch level := depth + 1; {
	case strings.HasPrefix(indent, "\t"):
		unit = "\t"
	case len(indent) >= level && len(indent)%level == 0:
		unit = indent[:len(indent)/level]
	}
	nl := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		nl = "\r\n"
	}
	member := nestedMember(rest, value, indent, unit, nl)
	if n := len(obj.Members); n > 0 && !bytes.Contains(src[v.StartOffset:obj.Members[0].Name.StartOffset], []byte("\n")) {
		// An object written on one line gets its member on that line.
		member, indent, nl = nestedMember(rest, value, "", "", ""), "", " "
	}
	if len(obj.Members) == 0 {
		// Just after the opening brace; the closing brace keeps its line.
		open := v.StartOffset + 1
		closeIndent := indent[:max(0, len(indent)-len(unit))]
		return splices(src, splice{at: open, end: open, text: nl + indent + member + nl + closeIndent})
	}
	last := &obj.Members[len(obj.Members)-1].Value
	after := last.EndOffset
	var edits []splice
	if last.AfterExtra == nil {
		edits = append(edits, splice{at: after, end: after, text: ","})
	} else {
		after += len(last.AfterExtra) + 1 // past the trailing comma
	}
	// Past blanks and a line comment on the same line, which stay with the
	// member they follow.
	at := after
	for at < len(src) && (src[at] == ' ' || src[at] == '\t') {
		at++
	}
	if bytes.HasPrefix(src[at:], []byte("//")) {
		if j := bytes.IndexByte(src[at:], '\n'); j >= 0 {
			at += j
		} else {
			at = len(src)
		}
		if at > 0 && src[at-1] == '\r' {
			at--
		}
	} else {
		at = after
	}
	comma := ""
	if last.AfterExtra != nil {
		comma = "," // the file uses trailing commas; so does the new member
	}
	return splices(src, append(edits, splice{at: at, end: at, text: nl + indent + member + comma})...)
}

// nestedMember is `"a": {"b": "value"}` for rest [a b], one member a line.
func nestedMember(rest []string, value, indent, unit, nl string) string {
	name, _ := json.Marshal(rest[0])
	if len(rest) == 1 {
		quoted, _ := json.Marshal(value)
		return string(name) + ": " + string(quoted)
	}
	return string(name) + ": {" + nl + indent + unit + nestedMember(rest[1:], value, indent+unit, unit, nl) + nl + indent + "}"
}

// lineIndent is the blanks before offset on its line, def when something
// else precedes it there.
func lineIndent(src []byte, offset int, def string) string {
	start := bytes.LastIndexByte(src[:offset], '\n') + 1
	ws := src[start:offset]
	if len(bytes.Trim(ws, " \t")) != 0 {
		return def
	}
	return string(ws)
}

// newJSON is a fresh file holding only path = value.
func newJSON(path []string, value string) []byte {
	var v any = value
	for i := len(path) - 1; i >= 0; i-- {
		v = map[string]any{path[i]: v}
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return append(b, '\n')
}

// jsoncGet reads the string at path; ErrNotPointed when it is absent.
func jsoncGet(src []byte, path []string) (string, error) {
	std, err := hujson.Standardize(bytes.Clone(src))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrMalformed, strings.TrimPrefix(err.Error(), "hujson: "))
	}
	var v any
	if err := json.Unmarshal(std, &v); err != nil {
		return "", fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	for _, name := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return "", fmt.Errorf("%w: %s is not set", ErrNotPointed, pointer(path))
		}
		v = obj[name]
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%w: %s is not set", ErrNotPointed, pointer(path))
	}
	return s, nil
}

// pointer names a path for a message: provider.openai.options.baseURL.
func pointer(path []string) string {
	if len(path) == 0 {
		return "the top level"
	}
	return strings.Join(path, ".")
}

// splices applies non-overlapping edits given in increasing offset order.
func splices(src []byte, edits ...splice) []byte {
	var out bytes.Buffer
	last := 0
	for _, e := range edits {
		out.Write(src[last:e.at])
		out.WriteString(e.text)
		last = e.end
	}
	out.Write(src[last:])
	return out.Bytes()
}

var (
	// ErrMalformed: the file is not valid for its client; it is left as it is.
	ErrMalformed = errors.New("malformed")
	// ErrUnsupported: the file is valid but shaped so that continuity cannot
	// edit it safely; the message says what to change.
	ErrUnsupported = errors.New("cannot edit")
	// ErrNotPointed: the file does not set where the client sends requests.
	ErrNotPointed = errors.New("not set")
)

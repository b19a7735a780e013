package dshevent

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/continuity-dev/continuity/jsonscan"
)

// Object is one JSON object's members located, not decoded, so that a
// reader on the read loop can take the few small members it needs from a
// 17 MiB tool/result and only skip its output (jsonscan skips strings at
// memory speed; gjson would walk them byte by byte, and ParseBytes copies
// the whole data first). The bytes are the caller's, borrowed: Raw returns
// a sub-slice of them, valid only while the caller holds the event; Str
// and Excerpt return copies.
type Object struct {
	b  []byte
	s  jsonscan.Scanner
	ms []jsonscan.Member
}

// ReadObject locates the members of b, which the wire has validated and
// which must be one JSON object; ok is false for any other value.
func ReadObject(b []byte) (o Object, ok bool) {
	o.b = b
	o.s = jsonscan.Scanner{B: b, Trusted: true}
	ms, err := o.s.Members(nil)
	if err != nil {
		return Object{}, false
	}
	o.ms = ms
	return o, true
}

// Raw returns the value bytes of the member name (nil when absent). The
// last member of that name wins, as in encoding/json.
func (o *Object) Raw(name string) []byte {
	for i := len(o.ms) - 1; i >= 0; i-- {
		if o.s.NameIs(o.ms[i], name) {
			return o.ms[i].Value(o.b)
		}
	}
	return nil
}

// Str returns the member name's string value, decoded and copied; ok is
// false when it is absent or not a string. Use it for small members only:
// Excerpt reads the start of a large one.
func (o *Object) Str(name string) (string, bool) {
	v := o.Raw(name)
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	d, ok := o.s.Decoded(v[1 : len(v)-1])
	return string(d), ok
}

// True reports whether the member name is the literal true.
func (o *Object) True(name string) bool { return string(o.Raw(name)) == "true" }

// Excerpt returns the first line of the JSON string value v (quotes
// included), leading whitespace skipped, decoded and cut to at most limit
// bytes on a rune boundary; only the bytes up to the cut are read, so the
// start of a 17 MiB output costs what its first line does. A value that is
// not a string yields "".
func Excerpt(v []byte, limit int) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	raw := v[1 : len(v)-1]
	var out []byte
	for len(raw) > 0 && len(out) < limit {
		if len(out) == 0 {
			raw = bytes.TrimLeft(raw, " \t\r")
			for bytes.HasPrefix(raw, []byte(`\n`)) || bytes.HasPrefix(raw, []byte(`\t`)) || bytes.HasPrefix(raw, []byte(`\r`)) {
				raw = bytes.TrimLeft(raw[2:], " \t\r")
			}
		}
		chunk := raw[:min(len(raw), limit-len(out))]
		j := bytes.IndexByte(chunk, '\\')
		if j < 0 {
			out, raw = append(out, chunk...), raw[len(chunk):]
			continue
		}
		out = append(out, raw[:j]...)
		var n int
		if out, n = jsonscan.AppendEscape(out, raw[j:]); n == 0 {
			break
		}
		raw = raw[j+n:]
	}
	line := string(out)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimRight(line, " \t\r")
	if len(line) > limit {
		line = line[:limit]
	}
	for len(line) > 0 {
		// The cut may have split the last character.
		if r, size := utf8.DecodeLastRuneInString(line); r != utf8.RuneError || size != 1 {
			break
		}
		line = line[:len(line)-1]
	}
	return line
}

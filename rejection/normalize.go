package rejection

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxBody is how much of an error body Classify reads. Hosts send at most
// 8 KiB (docs/protocol.md §4.1, llm/response); the cap keeps the work bounded when a
// caller passes more.
const MaxBody = 8 << 10

// maxUnescape bounds how many JSON string levels are undone. LiteLLM nests
// the supplier's JSON inside its own message (two levels), and hosts may
// quote the whole body once more; four levels cover that with room.
const maxUnescape = 4

// normalize undoes up to maxUnescape levels of JSON string escaping and folds
// every run of white space into one space, so that a phrase reads the same
// whether it arrived bare, in JSON, in JSON inside JSON, or pretty-printed.
// It never parses JSON: a body cut mid-string normalizes like any other.
func normalize(body string) string {
	s := body
	for range maxUnescape {
		if !strings.Contains(s, `\`) {
			break
		}
		u := unescape(s)
		if u == s {
			break
		}
		s = u
	}
	return foldSpace(s)
}

// unescape undoes one level of JSON string escapes. Unknown or truncated
// escapes are kept as they are; `\'` (Python reprs) becomes a quote.
func unescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		switch n := s[i+1]; n {
		case '"', '\\', '/', '\'':
			b.WriteByte(n)
			i++
		case 'n', 'r', 't', 'b', 'f':
			b.WriteByte(' ')
			i++
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok {
				b.WriteByte(c)
				continue
			}
			if !utf8.ValidRune(r) {
				r = utf8.RuneError
			}
			b.WriteRune(r)
			i += 5
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// hex4 reads the four hex digits of a \u escape.
func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// foldSpace replaces each run of white space with one ASCII space.
func foldSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// asciiLower lowers ASCII letters only, so byte offsets in the result are
// the offsets in s (strings.ToLower may change lengths outside ASCII).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

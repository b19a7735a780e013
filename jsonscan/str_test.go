package jsonscan

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestStrAgreesWithEncodingJSON builds random strings from pieces that hit
// every path of the validating string scanner — long escape-free runs (the
// vectorised path), dense escapes (the word-at-a-time path), escaped quotes
// right where a quote search lands, control characters and non-ASCII at
// every offset of a 64-byte round, broken UTF-8 and broken escapes — and
// checks that it accepts exactly what encoding/json and utf8.Valid accept,
// and reports Plain exactly for printable ASCII without escapes.
func TestStrAgreesWithEncodingJSON(t *testing.T) {
	pieces := []string{
		"a", "Zq09+/=", strings.Repeat("B", 63), strings.Repeat("c", 64), strings.Repeat("d", 65),
		`\n`, `\"`, `\\`, `\/`, `\u00e9`, `\uD83D\uDE00`, `\u12`, `\x`, `\`,
		"\n", "\x01", "\x1f", "\x7f", "é", "漢字", "\xff", "\xe6\xbc", "\"",
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 20000; n++ {
		var sb strings.Builder
		for k := rng.IntN(12); k >= 0; k-- {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		content := sb.String()
		doc := []byte(`{"k":"` + content + `"}`)
		want := json.Valid(doc) && utf8.Valid(doc)
		sc := Scanner{B: doc}
		end, err := sc.Str(5)
		// A string that ends early (an unescaped quote inside) leaves bytes
		// that make the document invalid.
		got := err == nil && end == len(doc)-1
		if got != want {
			t.Fatalf("%q: scanner accepts %v, encoding/json %v", content, got, want)
		}
		plain := !strings.ContainsAny(content, "\\\"")
		for _, c := range []byte(content) {
			if c < 0x20 || c >= utf8.RuneSelf {
				plain = false
			}
		}
		if got && sc.Plain != plain {
			t.Fatalf("%q: Plain = %v, want %v", content, sc.Plain, plain)
		}
	}
}

// TestTrustedStrAsValidating: on valid strings — short ones whose closing
// quote shortStrEnd sees, backslash runs of both parities right before a
// quote, escaped quotes at every offset of its two words, and longer
// ones — the trusted Str ends each where the validating one does, and an
// unterminated one fails the same way.
func TestTrustedStrAsValidating(t *testing.T) {
	pieces := []string{"a", "xyz", "1234567", `\"`, `\\`, `\\\"`, `\n`, `\u00e9`, "é", strings.Repeat("q", 9), strings.Repeat("w", 17)}
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 0; n < 50000; n++ {
		var sb strings.Builder
		for k := rng.IntN(6); k > 0; k-- {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		content := sb.String()
		tail := []string{`"}`, `"`, `","b":"c"}`, ``}[rng.IntN(4)]
		doc := []byte(`{"k":"` + content + tail)
		v := Scanner{B: doc}
		vend, verr := v.Str(5)
		tr := Scanner{B: doc, Trusted: true}
		tend, terr := tr.Str(5)
		if verr == nil && (terr != nil || tend != vend) {
			t.Fatalf("%q: trusted Str %d %v, validating %d", doc, tend, terr, vend)
		}
		if tail == `` && terr == nil {
			t.Fatalf("%q: an unterminated string ends at %d", doc, tend)
		}
	}
}

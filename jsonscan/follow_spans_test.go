package jsonscan

import (
	"strings"
	"testing"
)

// followDoc is a document with strings of LongString bytes or more —
// values and a name, plain and not: an escape (two-byte and \u) or a
// multi-byte UTF-8 sequence first, last or in the middle — and short
// ones; want are the long strings' starts.
func followDoc() (doc []byte, want []int) {
	long := strings.Repeat("QUJDRA+/", LongString/8+4)
	var b []byte
	add := func(s string) {
		want = append(want, len(b))
		b = append(b, '"')
		b = append(b, s...)
		b = append(b, '"')
	}
	b = append(b, `{"a":`...)
	add(long)
	b = append(b, `,"b":[`...)
	add(long[:3000] + `\"` + long[:2000])
	b = append(b, `, {"c":`...)
	add(long[:3000] + "é" + long[:2000])
	b = append(b, `, "short\n":2}, `...)
	add(`\u00e9` + long)
	b = append(b, `],`...)
	add(long + "€")
	b = append(b, `:1, "d":`...)
	add(long + `\\`)
	b = append(b, `, "e":`...)
	add(long[:4000] + "😀" + long[:200])
	b = append(b, `}`...)
	return b, want
}

// TestFollowSpansAsScanner: for the document fed in two pieces split at
// every byte, and in three around every escape and UTF-8 sequence, the
// spans published are exactly the long strings, each with the end and
// plain flag a validating Scanner's Str finds; strings with an escape or
// non-ASCII are never plain.
func TestFollowSpansAsScanner(t *testing.T) {
	doc, want := followDoc()
	check := func(name string, pieces ...[]byte) {
		t.Helper()
		var v Validator
		sp := v.Follow(doc)
		for _, p := range pieces {
			v.Write(p)
			v.Publish()
		}
		got := sp.spans()
		if len(got) != len(want) {
			t.Fatalf("%s: %d spans, want %d", name, len(got), len(want))
		}
		for k, s := range got {
			sc := Scanner{B: doc}
			end, err := sc.Str(s.start)
			if err != nil || s.start != want[k] || s.end != end || s.plain != sc.Plain {
				t.Fatalf("%s: span %d %+v, want start %d end %d plain %v (%v)", name, k, s, want[k], end, sc.Plain, err)
			}
			if c := doc[s.start+1 : s.end-1]; s.plain && strings.ContainsFunc(string(c), func(r rune) bool { return r == '\\' || r >= 0x80 }) {
				t.Fatalf("%s: span %d plain with an escape or non-ASCII", name, k)
			}
		}
	}
	check("whole", doc)
	for i := 1; i < len(doc); i++ {
		check("split", doc[:i], doc[i:])
	}
	for i, c := range doc {
		if c != '\\' && c < 0x80 {
			continue
		}
		for j := i + 1; j <= min(i+6, len(doc)-1); j++ {
			check("around", doc[:i], doc[i:j], doc[j:])
		}
	}
}

// TestFollowSpansPublished: followed spans show only what Publish has
// published, none once the document is found bad or for a buffer that
// does not hold the bytes fed, and stay as published
// when the Validator is reset and reused: a later document's strings do
// not overwrite them.
func TestFollowSpansPublished(t *testing.T) {
	doc, want := followDoc()
	var v Validator
	sp := v.Follow(doc)
	v.Write(doc)
	if sp.Len() != 0 {
		t.Fatalf("%d spans before Publish", sp.Len())
	}
	v.Publish()
	if sp.Len() != len(want) {
		t.Fatalf("%d spans published, want %d", sp.Len(), len(want))
	}
	first := sp.spans()[0]
	v.Reset()
	other := append([]byte(`{"x":[1,2,3], "y":`), doc...)
	other = append(other, '}')
	sp2 := v.Follow(other)
	v.Write(other)
	v.Publish()
	if sp.spans()[0] != first || sp2.Len() != len(want) {
		t.Fatalf("after Reset the first document's spans changed: %+v, want %+v", sp.spans()[0], first)
	}

	// A buffer that does not hold the bytes fed gets no spans.
	var elsewhere Validator
	se := elsewhere.Follow(make([]byte, len(doc)))
	elsewhere.Write(doc)
	elsewhere.Publish()
	if se.Len() != 0 {
		t.Fatalf("%d spans published for a buffer without the bytes fed", se.Len())
	}

	var bad Validator
	sb := bad.Follow(doc)
	bad.Write(doc[:want[1]+10])
	bad.Write([]byte{0x01})
	bad.Write(doc[want[1]+11:])
	bad.Publish()
	if sb.Len() != 0 {
		t.Fatalf("%d spans published for a document found bad", sb.Len())
	}
}

// TestFollowSpansOnlyForTheirBuffer: followed spans step over a string
// only in the buffer they are bound to, at a recorded start, and only when
// the bytes in hand hold the whole string; a quote planted inside the
// first long string shows which.
func TestFollowSpansOnlyForTheirBuffer(t *testing.T) {
	doc, want := followDoc()
	buf := make([]byte, len(doc), len(doc)+100)
	copy(buf, doc)
	var v Validator
	sp := v.Follow(buf)
	v.Write(buf)
	v.Publish()
	at := want[0]
	end := at + 2 + len(strings.Repeat("QUJDRA+/", LongString/8+4))
	cp := append([]byte(nil), buf...)
	buf[at+100], cp[at+100] = '"', '"'
	if got := skipEnd(buf, at, sp); got != end {
		t.Fatalf("the bound buffer: end %d, want %d (the span)", got, end)
	}
	if got := skipEnd(buf[at:end], 0, sp); got != end-at {
		t.Fatalf("a part of the bound buffer: end %d, want %d", got, end-at)
	}
	for _, c := range []struct {
		name string
		b    []byte
		i    int
	}{
		{"a copy", cp, at},
		{"inside the string", buf[at+1:], 0},
		{"cut short", buf[:end-1], at},
	} {
		if got, want := skipEnd(c.b, c.i, sp), skipEnd(c.b, c.i, Spans{}); got != want {
			t.Errorf("%s: end %d, want %d (no span applies)", c.name, got, want)
		}
	}
	sp.Retire()
	if got := skipEnd(buf, at, sp); got != at+101 {
		t.Fatalf("a retired span still applies: end %d", got)
	}
}

// TestFollowUnclosed: a trusted scan of the bytes fed and published so
// far fails a string the Validator was still inside at its latest
// Publish at once, with the error a search of those bytes gives
// (unterminated at their end) — for the document cut at every byte —
// and, once the string's close has been fed and published, finds its
// end as a validating scan does. A validator that found the bytes bad
// and plain (not followed) spans claim nothing.
func TestFollowUnclosed(t *testing.T) {
	doc, _ := followDoc()
	for n := 1; n < len(doc); n++ {
		var v Validator
		sp := v.Follow(doc)
		v.Write(doc[:n])
		v.Publish()
		b := doc[:n]
		for i, c := range b {
			if c != '"' || !sp.unclosed(b, i) {
				continue
			}
			if v.strAt != i {
				t.Fatalf("cut at %d: the string at %d is claimed open, the validator is in the one at %d", n, i, v.strAt)
			}
			want := Scanner{B: b, Trusted: true}
			_, werr := want.trustedStr(i)
			got := Scanner{B: b, Trusted: true, Long: sp}
			_, err := got.Str(i)
			if err == nil || werr == nil || err.Error() != werr.Error() {
				t.Fatalf("cut at %d, string at %d: %v, a search says %v", n, i, err, werr)
			}
		}
		v.Write(doc[n:])
		v.Publish()
		for i, c := range doc {
			if c == '"' && sp.unclosed(doc, i) {
				t.Fatalf("cut at %d: the string at %d is claimed open after the whole document", n, i)
			}
		}
	}
	var v Validator
	sp := v.Follow(doc)
	v.Write([]byte(`{"a":"abc`))
	v.Publish()
	if !sp.unclosed(doc, 5) {
		t.Fatal("an open string is not claimed open")
	}
	v.Write([]byte("\x01"))
	v.Publish()
	if sp.unclosed(doc, 5) {
		t.Fatal("the string of a failed document is claimed open")
	}
	v.Reset()
	v.Write([]byte(`{"a":"abc`))
	if long := v.Long(doc); long.unclosed(doc, 5) {
		t.Fatal("spans that do not follow a document claim a string open")
	}
}

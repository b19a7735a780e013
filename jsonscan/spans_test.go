package jsonscan

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
)

// genDoc writes a random JSON object with long strings (names and values,
// with escapes and multi-byte UTF-8) nested at several depths, at least
// one at depth two or more.
type genDoc struct {
	rng  *rand.Rand
	b    []byte
	long int // long strings written
}

// pieces are what a string's content is made of.
var pieces = []string{"ok   ", `\t`, `\n`, `\"`, `\\`, `\/`, `\u00e9`, `\ud83d\ude00`, "é", "€", "😀", "github.com/x", `\r\n`, "a"}

func (g *genDoc) str(long bool) {
	g.b = append(g.b, '"')
	n := g.rng.IntN(12)
	if long {
		g.long++
		n = LongString + g.rng.IntN(4096)
	}
	for start := len(g.b); len(g.b)-start < n; {
		g.b = append(g.b, pieces[g.rng.IntN(len(pieces))]...)
	}
	g.b = append(g.b, '"')
}

func (g *genDoc) value(depth int) {
	switch k := g.rng.IntN(10); {
	case depth < 4 && k < 3:
		g.object(depth + 1)
	case depth < 4 && k < 5:
		g.b = append(g.b, '[')
		for i := range g.rng.IntN(5) {
			if i > 0 {
				g.b = append(g.b, ", "[:1+g.rng.IntN(2)]...)
			}
			g.value(depth + 1)
		}
		g.b = append(g.b, ']')
	case k < 7:
		g.str(g.rng.IntN(3) == 0)
	case k < 8:
		g.b = strconv.AppendFloat(g.b, g.rng.NormFloat64()*1e6, 'g', -1, 64)
	default:
		g.b = append(g.b, []string{"true", "false", "null"}[g.rng.IntN(3)]...)
	}
}

func (g *genDoc) object(depth int) {
	g.b = append(g.b, '{')
	for i := range 1 + g.rng.IntN(4) {
		if i > 0 {
			g.b = append(g.b, ',')
		}
		g.str(g.rng.IntN(12) == 0)
		g.b = append(g.b, " :"[g.rng.IntN(2):]...)
		g.value(depth)
	}
	g.b = append(g.b, '}')
}

func randomDoc(rng *rand.Rand) []byte {
	for {
		g := &genDoc{rng: rng}
		g.b = append(g.b, `{"deep":{"data":[`...)
		g.str(true)
		g.b = append(g.b, "],"...)
		g.str(false)
		g.b = append(g.b, ':')
		g.value(1)
		g.b = append(g.b, `},"more":`...)
		g.value(1)
		g.b = append(g.b, '}')
		sc := Scanner{B: g.b}
		if _, err := sc.Members(nil); err == nil {
			return g.b
		}
	}
}

// validated feeds doc to a Validator in random pieces and returns its
// spans of doc.
func validated(t testing.TB, rng *rand.Rand, doc []byte) Spans {
	var v Validator
	at := 0
	for _, c := range randomCuts(rng, len(doc)) {
		v.Write(doc[at:c])
		at = c
	}
	v.Write(doc[at:])
	if _, err := v.End(nil); err != nil {
		t.Fatalf("a generated document does not validate: %v", err)
	}
	return v.Long(doc)
}

// trace walks every value of the JSON value b with trusted Scanners given
// long, each over the value's own bytes (so spans are looked up from
// sub-slices at every depth): member ranges, element ends and each
// string's decoded content (its length and digest).
func trace(t *testing.T, b []byte, long Spans) []string {
	var out []string
	var walk func(b []byte)
	walk = func(b []byte) {
		sc := Scanner{B: b, Trusted: true, Long: long}
		switch b[0] {
		case '{':
			ms, err := sc.Members(nil)
			if err != nil {
				out = append(out, "members: "+err.Error())
				return
			}
			for _, m := range ms {
				out = append(out, fmt.Sprint("member ", m))
				walk(b[m.KeyStart:m.KeyEnd])
				walk(m.Value(b))
			}
		case '[':
			for i := sc.WS(1); b[i] != ']'; {
				end, err := sc.Value(i)
				if err != nil {
					out = append(out, "element: "+err.Error())
					return
				}
				out = append(out, fmt.Sprint("element ", i, end))
				walk(b[i:end])
				if i = sc.WS(end); b[i] == ',' {
					i = sc.WS(i + 1)
				}
			}
		case '"':
			end, err := sc.Value(0)
			d, ok := sc.Decoded(b[1 : len(b)-1])
			out = append(out, fmt.Sprintf("string end %d %v, decoded %d %v %x", end, err, len(d), ok, sha256.Sum256(d)))
		default:
			end, err := sc.Value(0)
			out = append(out, fmt.Sprint("scalar ", end, err))
		}
	}
	walk(b)
	return out
}

// TestSpansScanAsWithout: on generated documents (escapes, multi-byte
// UTF-8, long names and values nested at several depths), trusted scans
// given the Validator's spans find exactly the members, elements and
// string values that scans without them find.
func TestSpansScanAsWithout(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 26))
	for range 40 {
		doc := randomDoc(rng)
		long := validated(t, rng, doc)
		if long.Len() < 1 {
			t.Fatalf("seed %d: no spans for a document with long strings", seed)
		}
		with, without := trace(t, doc, long), trace(t, doc, Spans{})
		if !slices.Equal(with, without) {
			for i := range min(len(with), len(without)) {
				if with[i] != without[i] {
					t.Fatalf("seed %d: with spans %q, without %q", seed, with[i], without[i])
				}
			}
			t.Fatalf("seed %d: %d steps with spans, %d without", seed, len(with), len(without))
		}
	}
}

// bigDoc is a document with one long string value, and where that value
// starts.
func bigDoc() (doc []byte, at int) {
	text := bytes.Repeat([]byte(`ok   \tgithub.com/example/pkg\t0.1s\n`), LongString/30)
	doc = append([]byte(`{"a":1,"text":"`), text...)
	doc = append(doc, `","z":true}`...)
	return doc, len(`{"a":1,"text":`)
}

// skipEnd is where a trusted scan with long finds the end of b's string
// at i.
func skipEnd(b []byte, i int, long Spans) int {
	sc := Scanner{B: b, Trusted: true, Long: long}
	end, err := sc.Value(i)
	if err != nil {
		return -1
	}
	return end
}

// TestSpansOnlyForTheirBytes: spans step over a string only in the very
// bytes the Validator validated, at a recorded start, and only until they
// are retired. A quote planted inside the long string after validation
// shows which: a scan that uses the span steps over it, one that does not
// stops there.
func TestSpansOnlyForTheirBytes(t *testing.T) {
	doc, at := bigDoc()
	var v Validator
	v.Write(doc)
	if _, err := v.End(nil); err != nil {
		t.Fatal(err)
	}
	long := v.Long(doc)
	if long.Len() != 1 {
		t.Fatalf("%d spans, want 1", long.Len())
	}
	copyOf := slices.Clone(doc)
	end := len(doc) - len(`,"z":true}`)
	doc[at+100], copyOf[at+100] = '"', '"' // the planted quote
	if got := skipEnd(doc, at, long); got != end {
		t.Fatalf("the validated bytes: the string ends at %d, want %d (the span)", got, end)
	}
	if got := skipEnd(doc[at:end], 0, long); got != end-at {
		t.Fatalf("a sub-slice of the validated bytes: the string ends at %d, want %d", got, end-at)
	}
	for _, c := range []struct {
		name string
		b    []byte
		i    int
	}{
		{"a copy of the bytes", copyOf, at},
		{"a slice starting inside the string", doc[at+1:], 0},
		{"a slice cutting the string short", doc[:end-1], at},
	} {
		if got, want := skipEnd(c.b, c.i, long), skipEnd(c.b, c.i, Spans{}); got != want {
			t.Errorf("%s: the string ends at %d, want %d (no span applies)", c.name, got, want)
		}
	}
	// The Validator reused for another document (its long string
	// elsewhere) leaves the spans handed out as they were.
	doc[at+100] = 'o'
	v.Reset()
	v.Write(append([]byte("     "), doc...))
	if _, err := v.End(nil); err != nil || v.Long(nil).Len() != 0 {
		t.Fatal("the second document", err)
	}
	if got := skipEnd(doc, at, long); got != end {
		t.Fatalf("after the Validator's reset the span changed: end %d, want %d", got, end)
	}
	doc[at+100] = '"'
	long.Retire()
	if got := skipEnd(doc, at, long); got != at+101 {
		t.Fatalf("a retired span still applies: end %d, want %d", got, at+101)
	}
}

// TestLongOnlyForTheDocumentFed: Long gives spans only for a valid
// document, bound to the bytes fed (a trailing \r cut is allowed).
func TestLongOnlyForTheDocumentFed(t *testing.T) {
	doc, _ := bigDoc()
	for _, c := range []struct {
		name      string
		fed, doc  []byte
		wantSpans int
	}{
		{"the bytes fed", doc, doc, 1},
		{"a trailing \\r cut", append(slices.Clone(doc), '\r'), doc, 1},
		{"shorter bytes", doc, doc[:len(doc)-2], 0},
		{"longer bytes", doc, append(slices.Clone(doc), "  "...), 0},
		{"other bytes of the same length", doc, append([]byte("  "), doc[:len(doc)-2]...), 0},
		{"an invalid document", doc[:len(doc)-1], doc[:len(doc)-1], 0},
		{"a valid document that is not an object", doc[len(`{"a":1,"text":`) : len(doc)-len(`,"z":true}`)], doc[len(`{"a":1,"text":`) : len(doc)-len(`,"z":true}`)], 1},
		{"a string cut short", doc[len(`{"a":1,"text":`) : len(doc)-len(`,"z":true}`)-1], doc[len(`{"a":1,"text":`) : len(doc)-len(`,"z":true}`)-1], 0},
	} {
		var v Validator
		v.Write(c.fed)
		v.End(nil)
		if n := v.Long(c.doc).Len(); n != c.wantSpans {
			t.Errorf("%s: %d spans, want %d", c.name, n, c.wantSpans)
		}
	}
	var v Validator
	v.Write([]byte(`{"short":"` + string(bytes.Repeat([]byte("x"), LongString-3)) + `"}`))
	v.End(nil)
	if n := v.Long(nil).Len(); n != 0 {
		t.Errorf("a string under LongString: %d spans", n)
	}
}

// BenchmarkSpans reads the members of a 17 MiB tool/result's params (its
// text a go test log: an escape every few words) with trusted scans at
// the envelope's two levels, as the server does, with the Validator's
// spans and without, in the same run.
//
//	go test -run '^$' -bench Spans ./jsonscan/
func BenchmarkSpans(b *testing.B) {
	line := `ok   \tgithub.com/example/pkg/sub\t0.123s coverage: 81.2% of statements\n`
	text := bytes.Repeat([]byte(line), (17<<20)/len(line))
	doc := append([]byte(`{"sessionId":"s","event":{"type":"tool/result","seq":7,"data":{"message":{"content":[{"type":"text","text":"`), text...)
	doc = append(doc, `"}]}},"surfaceOp":"append"}}`...)
	var v Validator
	v.Write(doc)
	if _, err := v.End(nil); err != nil {
		b.Fatal(err)
	}
	long := v.Long(doc)
	envelope := func(long Spans) time.Duration {
		start := time.Now()
		sc := Scanner{B: doc, Trusted: true, Long: long}
		ms, err := sc.Members(nil)
		if err != nil || len(ms) != 2 {
			b.Fatal("the params do not read", err)
		}
		ev := ms[1].Value(doc)
		sc = Scanner{B: ev, Trusted: true, Long: long}
		if ms, err = sc.Members(ms[:0]); err != nil || len(ms) != 4 {
			b.Fatal("the event does not read", err)
		}
		return time.Since(start)
	}
	var with, without time.Duration
	for b.Loop() {
		with += envelope(long)
		without += envelope(Spans{})
	}
	b.ReportMetric(float64(with.Nanoseconds())/float64(b.N), "with-ns/op")
	b.ReportMetric(float64(without.Microseconds())/float64(b.N), "without-us/op")
	b.ReportMetric(float64(without)/float64(with), "without/with")
}

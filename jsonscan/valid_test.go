package jsonscan

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// small makes Members split documents of any size, so that tests and the
// fuzzer reach the two-goroutine path.
func small(t testing.TB) {
	from := parallelFrom
	parallelFrom = 0
	t.Cleanup(func() { parallelFrom = from })
}

// documentValid is what a validating Members scan says of b: an object,
// or valid JSON that is not one.
func documentValid(b []byte) bool {
	s := Scanner{B: b}
	_, err := s.Members(nil)
	return err == nil || errors.As(err, new(ErrNotObject))
}

func wantValid(b []byte) bool { return json.Valid(b) && utf8.Valid(b) }

// mutate makes one to three random edits to b: a byte deleted, a byte
// doubled, or a byte replaced by one of structural.
func mutate(rng *rand.Rand, b, structural []byte) []byte {
	for k := rng.IntN(3); k >= 0; k-- {
		at := rng.IntN(len(b))
		switch rng.IntN(3) {
		case 0:
			b = append(b[:at], b[at+1:]...)
		case 1:
			b = append(b[:at+1], b[at:]...)
		default:
			b[at] = structural[rng.IntN(len(structural))]
		}
	}
	return b
}

// TestSplitScanAgreesWithEncodingJSON mutates documents whose second half
// is an array of objects (where the split lands) byte by byte — deleting,
// duplicating and replacing structural characters, quotes and backslashes —
// and checks that the split scan agrees with encoding/json on every one.
func TestSplitScanAgreesWithEncodingJSON(t *testing.T) {
	small(t)
	docs := []string{
		`{"jsonrpc":"2.0","id":1,"params":{"payload":{"input":[{"type":"reasoning","encrypted_content":"gAAAAABxyz=="},{"type":"message","content":"a \"quoted\" },{\"x\" line\nnext"},{"n":[1,2.5e3,-0,true,false,null]},{"nested":{"deeper":["x","y",{"z":"漢字"}]}},{"a":1},{"b":2}]}}}`,
		`{"k":[{"a":"` + strings.Repeat("b", 40) + `"},{"c":["` + strings.Repeat(`\\`, 20) + `"]},{"tail":"},{\"x\":1}"}],"after":{"q":[{"r":1},{"s":2}]}}`,
		`{"text":"},{\"not\":\"an element\"},{\"still\":\"text\"}","x":[{"y":1},{"z":2}]}`,
	}
	rng := rand.New(rand.NewPCG(11, 12))
	structural := []byte(`{}[]",:\ 0a`)
	for _, d := range docs {
		if !documentValid([]byte(d)) {
			t.Fatalf("rejects a valid document: %s", d)
		}
		for n := 0; n < 5000; n++ {
			b := mutate(rng, []byte(d), structural)
			if got, want := documentValid(b), wantValid(b); got != want {
				t.Fatalf("split scan of %s = %v, encoding/json says %v", b, got, want)
			}
		}
	}
}

// TestSplitScanSharesTheWork checks that a large agent payload really is
// split: the other goroutine validates a run of elements that starts at an
// element boundary past the middle and reaches the end of the array.
func TestSplitScanSharesTheWork(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"params":{"payload":{"input":[`)
	for i := range 400 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"type":"message","content":"` + strings.Repeat("text with \\\"escapes\\\" ", 100) + `"}`)
	}
	sb.WriteString(`]}}}`)
	b := []byte(sb.String())
	sp := startSplit(b)
	if sp == nil {
		t.Fatal("no split point")
	}
	<-sp.done
	if !sp.ok || sp.at < len(b)/2 || b[sp.at] != '{' || sp.end != len(b)-4 {
		t.Fatalf("run [%d, %d) ok %v in %d bytes", sp.at, sp.end, sp.ok, len(b))
	}
	if len(b) < ParallelFrom || !documentValid(b) {
		t.Fatal("the payload is not valid")
	}
	b[len(b)*3/4] = '\x01' // a control character in the other goroutine's half
	if documentValid(b) {
		t.Fatal("accepts a control character in the second half")
	}
}

func FuzzSplitScan(f *testing.F) {
	f.Add([]byte(`{"a":[{"b":1},{"c":"d"},{"e":[{"f":2},{"g":3}]}],"h":"i\u00e9"}`))
	f.Add([]byte(`{"x":"},{\"y\":1}","z":[{"w":1},{"v":2}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		small(t)
		if got, want := documentValid(b), wantValid(b); got != want {
			t.Fatalf("split scan of %q = %v, encoding/json says %v", b, got, want)
		}
	})
}

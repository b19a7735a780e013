package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The rewritten validating paths (strBody, the Validator's fast paths) must
// say exactly what the code before them said (ref_test.go): the same
// verdict, the same error offset, the same members, the same Plain. These
// tests compare the two on generated and mutated documents, and both with
// encoding/json.

// refOnePass is the reference Scanner's Members verdict.
func refOnePass(b []byte) string {
	s := refScanner{B: b}
	return verdict(s.Members(nil))
}

// refFed is the reference Validator's verdict on b cut at cuts.
func refFed(b []byte, cuts []int) string {
	var v refValidator
	at := 0
	for _, c := range cuts {
		v.Write(b[at:c])
		at = c
	}
	v.Write(b[at:])
	return verdict(v.End(nil))
}

// strVerdict is what a Scanner's Str says of the string at i.
func strVerdict(end int, err error, plain bool) [3]any {
	off := -1
	if se, ok := err.(*SyntaxError); ok {
		off = se.Offset
	}
	return [3]any{end, off, plain}
}

// sameAsReference checks b with every scan against the reference: Members
// on one goroutine and split, Str at every quote, and the Validator in one
// piece, cut at every byte and at random.
func sameAsReference(t *testing.T, rng *rand.Rand, b []byte) {
	t.Helper()
	want := refOnePass(b)
	if got := onePass(b); got != want {
		t.Fatalf("%.300q: Members %s, reference %s", b, got, want)
	}
	for i, c := range b {
		if c != '"' {
			continue
		}
		s, r := Scanner{B: b}, refScanner{B: b}
		end, err := s.Str(i)
		rend, rerr := r.Str(i)
		if got, want := strVerdict(end, err, s.Plain), strVerdict(rend, rerr, r.Plain); got != want {
			t.Fatalf("%.300q: Str(%d) (end, error at, plain) %v, reference %v", b, i, got, want)
		}
	}
	every := make([]int, 0, len(b))
	for i := 1; i < len(b); i++ {
		every = append(every, i)
	}
	for _, cuts := range [][]int{nil, every, randomCuts(rng, len(b))} {
		if got := fed(b, cuts); got != want {
			t.Fatalf("%.300q cut at %v: Validator %s, reference %s", b, cuts, got, want)
		}
	}
	if got := refFed(b, randomCuts(rng, len(b))); got != want {
		t.Fatalf("%.300q: the reference Validator %s, its Members %s", b, got, want)
	}
}

// strPieces hit every path of the string loop: runs shorter and longer
// than a word and than plainRun's threshold, every escape (valid, cut
// short, bad), surrogate escapes alone and paired, UTF-8 of every length
// and every invalid form DecodeRune rejects, control characters, DEL.
var strPieces = []string{
	"a", "Zq09+/=", strings.Repeat("B", 7), strings.Repeat("c", 8), strings.Repeat("d", 63), strings.Repeat("e", 64),
	strings.Repeat("f", 65), strings.Repeat("g", 200),
	`\n`, `\t`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\u00e9`, `\uABCD`, `\uD83D\uDE00`, `\ud800`, `\udfff`, `\uDC00\uD800`,
	`\u12`, `\u12g4`, `\uG000`, `\x`, `\'`, `\U0041`, `\`, `\\\`, `\\\\`,
	"\n", "\x00", "\x01", "\x1f", "\x7f", " ", "é", "€", "漢字", "😀", "\U0010FFFF", "\uFFFD",
	"\xff", "\xfe", "\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xc2", "\xc2\x80", "\xdf\xbf", "\xe0\x9f\xbf", "\xe0\xa0\x80",
	"\xed\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xee\x80\x80", "\xe6\xbc", "\xf0\x8f\xbf\xbf", "\xf0\x90\x80\x80",
	"\xf4\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80", "\xf1\x80\x80", "\"",
}

func randomContent(rng *rand.Rand, pieces int) string {
	var sb strings.Builder
	for k := rng.IntN(pieces); k >= 0; k-- {
		sb.WriteString(strPieces[rng.IntN(len(strPieces))])
	}
	return sb.String()
}

// TestStrAgreesWithReference: random strings of those pieces, alone and
// as names and values in a document, scanned at every quote and fed at
// every cut, say what the reference says; and a document is accepted
// exactly when encoding/json and utf8.Valid accept it.
func TestStrAgreesWithReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for range 3000 {
		content := randomContent(rng, 8)
		doc := []byte(`{"k":"` + content + `","` + randomContent(rng, 3) + `":["x` + content + `",1]}`)
		sameAsReference(t, rng, doc)
		if got, want := onePass(doc) != "not an object" && !strings.HasPrefix(onePass(doc), "error"), wantValid(doc); got != want {
			t.Fatalf("%q: accepted %v, encoding/json %v", doc, got, want)
		}
		// The string cut short at every length, as a document's end.
		if len(doc) < 200 {
			for n := 6; n < len(doc); n++ {
				sameAsReference(t, rng, doc[:n])
			}
		}
	}
}

// TestEveryByteInStrings puts every byte value, and every pair of byte
// values, in a string at every offset of a word and of plainRun's 64-byte
// round, and compares with the reference and encoding/json.
func TestEveryByteInStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for c := range 256 {
		for _, at := range []int{0, 1, 7, 8, 9, 63, 64, 65, 70, 130} {
			content := []byte(strings.Repeat("x", at) + string([]byte{byte(c)}) + strings.Repeat("y", 9))
			doc := append(append([]byte(`{"k":"`), content...), `"}`...)
			sameAsReference(t, rng, doc)
			valid := onePass(doc) != "not an object" && !strings.HasPrefix(onePass(doc), "error")
			if valid != wantValid(doc) {
				t.Fatalf("%q: accepted %v, encoding/json %v", doc, valid, !valid)
			}
			esc := append(append([]byte(`{"k":"`+strings.Repeat("x", at)+`\`), byte(c)), `abcd"}`...)
			sameAsReference(t, rng, esc)
		}
		for d := range 256 {
			doc := []byte{'{', '"', 'k', '"', ':', '"', 'a', byte(c), byte(d), 'b', '"', '}'}
			s, r := Scanner{B: doc}, refScanner{B: doc}
			end, err := s.Str(5)
			rend, rerr := r.Str(5)
			if got, want := strVerdict(end, err, s.Plain), strVerdict(rend, rerr, r.Plain); got != want {
				t.Fatalf("%q: Str %v, reference %v", doc, got, want)
			}
			if got, want := fed(doc, []int{7, 8, 9}), refOnePass(doc); got != want {
				t.Fatalf("%q: Validator %s, reference %s", doc, got, want)
			}
		}
	}
}

// TestPlainRunEveryOffset puts the bytes plainRun's rough test tells
// apart (or cannot: a space, '!') at every offset of a long run's first
// three 64-byte rounds, after a space earlier in the same round or in an
// earlier one (roughStr fails, markStr clears the round) or none, and
// compares with the reference and encoding/json.
func TestPlainRunEveryOffset(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	special := []byte{'"', '\\', 0x00, 0x1f, ' ', '!', '#', 0x7f, 0x80, 0xa2, 0xc3, 0xdc, 0xff, '[', ']'}
	for _, c := range special {
		for at := 64; at < 64+3*64; at++ {
			for _, space := range []int{-1, at - 1, at - 70} {
				content := bytes.Repeat([]byte("q"), at+20)
				if space >= 0 {
					content[space] = ' '
				}
				content[at] = c
				if c == 0xc3 {
					content[at+1] = 0xa9 // é: valid, the run goes on after it
				}
				doc := append(append([]byte(`{"k":"`), content...), `"}`...)
				sameAsReference(t, rng, doc)
				if got, want := onePass(doc) != "not an object" && !strings.HasPrefix(onePass(doc), "error"), wantValid(doc); got != want {
					t.Fatalf("%q: accepted %v, encoding/json %v", doc, got, want)
				}
			}
		}
	}
}

// TestGeneratedDocumentsAgreeWithReference: random documents (long
// strings, escapes, nesting), valid and mutated, and every payload kind of
// the bench in 64 KiB reads and whole.
func TestGeneratedDocumentsAgreeWithReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	structural := []byte("{}[]\",:\\ 0-.eE+tfn\x01\xe9\xc3\xa9u")
	for range 30 {
		doc := randomDoc(rng)
		if got, want := onePass(doc), refOnePass(doc); got != want {
			t.Fatalf("Members %s, reference %s", got, want)
		}
		for range 20 {
			b := mutate(rng, slices.Clone(doc), structural)
			want := refOnePass(b)
			if got := onePass(b); got != want {
				t.Fatalf("Members %s, reference %s", got, want)
			}
			if got := fed(b, randomCuts(rng, len(b))); got != want {
				t.Fatalf("Validator %s, reference %s", got, want)
			}
		}
	}
	small := []byte(`{"a":[1,-0.5e+3,true,false,null,"x\u00e9\n"],"b":{"c":{"d":[[],{}]}},"e":"漢字"}`)
	for range 5000 {
		sameAsReference(t, rng, mutate(rng, slices.Clone(small), structural))
	}
	if testing.Short() {
		return
	}
	for _, k := range benchKinds {
		doc := benchBody(k.name)
		var cuts []int
		for at := 64 << 10; at < len(doc); at += 64 << 10 {
			cuts = append(cuts, at)
		}
		want := refOnePass(doc)
		if got := onePass(doc); got != want {
			t.Fatalf("%s: Members %.200s, reference %.200s", k.name, got, want)
		}
		if got := fed(doc, cuts); got != want {
			t.Fatalf("%s: Validator %.200s, reference %.200s", k.name, got, want)
		}
		for range 20 { // a fault anywhere
			b := slices.Clone(doc)
			b[rng.IntN(len(b))] = structural[rng.IntN(len(structural))]
			want := refOnePass(b)
			if got := onePass(b); got != want {
				t.Fatalf("%s: Members %.200s, reference %.200s", k.name, got, want)
			}
			if got := fed(b, cuts); got != want {
				t.Fatalf("%s: Validator %.200s, reference %.200s", k.name, got, want)
			}
		}
	}
}

// TestDeepNesting: nesting has no limit of its own (the bracket stacks
// grow), deep documents valid and cut short agree with the reference, and
// with encoding/json within its own depth limit.
func TestDeepNesting(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	for _, depth := range []int{1, 100, 9000, 200000} {
		for _, open := range []string{"[", `{"a":`} {
			closer := map[string]string{"[": "]", `{"a":`: "}"}[open]
			doc := []byte(`{"x":` + strings.Repeat(open, depth) + `"s"` + strings.Repeat(closer, depth) + `}`)
			for _, b := range [][]byte{doc, doc[:len(doc)-1], doc[:len(doc)/2]} {
				want := refOnePass(b)
				if got := onePass(b); got != want {
					t.Fatalf("depth %d: Members %.100s, reference %.100s", depth, got, want)
				}
				if got := fed(b, randomCuts(rng, len(b))); got != want {
					t.Fatalf("depth %d: Validator %.100s, reference %.100s", depth, got, want)
				}
				if depth < 9999 {
					if got := !strings.HasPrefix(want, "error"); got != json.Valid(b) {
						t.Fatalf("depth %d: accepted %v, encoding/json %v", depth, got, !got)
					}
				}
			}
		}
	}
}

// FuzzAgreesWithReference: any document, cut anywhere, gets from Members,
// Str at every quote and the Validator what the reference says.
//
//	go test -run '^$' -fuzz FuzzAgreesWithReference -fuzztime 2m ./jsonscan
func FuzzAgreesWithReference(f *testing.F) {
	f.Add([]byte(`{"a":[{"b":1},{"c":"d\u00e9\n\"x\\"},{"e":[-1.5e3,true,null]}],"h":"漢字😀"}`), uint64(1))
	f.Add([]byte("{\"a\":\"x\\\"y\x01\xe2\x82\"}"), uint64(2))
	f.Add([]byte(`{"k":"`+strings.Repeat("abcdefgh", 20)+`\ud800"}`), uint64(3))
	f.Fuzz(func(t *testing.T, b []byte, seed uint64) {
		sameAsReference(t, rand.New(rand.NewPCG(seed, seed>>32)), b)
		if valid := !strings.HasPrefix(onePass(b), "error"); valid != wantValid(b) {
			t.Fatalf("%q: accepted %v, encoding/json %v", b, valid, !valid)
		}
	})
}

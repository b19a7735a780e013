package jsonscan

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// verdict is what a scan says of a document, in a form to compare:
// "members [...]", "not an object" or "error at N".
func verdict(ms []Member, err error) string {
	var se *SyntaxError
	switch {
	case err == nil:
		return fmt.Sprint("members ", ms)
	case errors.As(err, new(ErrNotObject)):
		return "not an object"
	case errors.As(err, &se):
		return fmt.Sprint("error at ", se.Offset)
	}
	return "unexpected error " + err.Error()
}

func onePass(b []byte) string {
	s := Scanner{B: b}
	return verdict(s.Members(nil))
}

// fed feeds b to a Validator in the pieces cut at cuts (ascending).
func fed(b []byte, cuts []int) string {
	var v Validator
	at := 0
	for _, c := range cuts {
		v.Write(b[at:c])
		at = c
	}
	v.Write(b[at:])
	if v.Len() != len(b) {
		return "fed the wrong length"
	}
	return verdict(v.End(nil))
}

// randomCuts cuts n bytes into pieces of random sizes, often a byte or
// two (so that every escape, UTF-8 sequence, number and literal is cut
// somewhere), sometimes large.
func randomCuts(rng *rand.Rand, n int) []int {
	var cuts []int
	for at := 0; ; {
		step := 1 + rng.IntN(3)
		if rng.IntN(4) == 0 {
			step = 1 + rng.IntN(n+1)
		}
		if at += step; at >= n {
			return cuts
		}
		cuts = append(cuts, at)
	}
}

// agrees checks that the Validator says of b, cut at every byte, in one
// piece and at random, exactly what the one validating pass says.
func agrees(t *testing.T, rng *rand.Rand, b []byte) {
	t.Helper()
	want := onePass(b)
	every := make([]int, 0, len(b))
	for i := 1; i < len(b); i++ {
		every = append(every, i)
	}
	for _, cuts := range [][]int{nil, every, randomCuts(rng, len(b)), randomCuts(rng, len(b))} {
		if got := fed(b, cuts); got != want {
			t.Fatalf("%.300q cut at %v:\n validator %s\n one pass  %s", b, cuts, got, want)
		}
	}
}

// TestValidatorAgreesWithTheOnePass: documents valid and not — every
// kind of value, escapes, UTF-8 edge cases, numbers cut short, literals
// cut short, unterminated strings with bad bytes after their last quote,
// trailing bytes, non-objects — get the same verdict, members and error
// offset from the Validator, however they are cut, as from Members.
func TestValidatorAgreesWithTheOnePass(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	docs := []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":1,"b":[1,2,{"c":null}],"d":{"e":"f"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"session.event","params":{"event":{"text":"ok\tgo\n"}}}`,
		`{"a":-0.5e+10,"b":0,"c":-1E-2,"d":123,"e":1.25}`,
		`{"a":true,"b":false,"c":null}`, `{"a":tru}`, `{"a":truex}`, `{"a":nul`, `{"a":fals`, `{"a":x}`,
		`{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":1e+}`, `{"a":.5}`, `{"a":-a}`, `{"a":1`, `{"a":1.5`, `{"a":-`,
		`{"a":"\u00e9\uD834\udd1e\"\\\/\b\f\n\r\t"}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":"\u"}`,
		`{"a":"\`, `{"a":"\u00`, `{"a":"abc`, `{"a":"ab` + "\x01" + `c`, `{"a":"ab` + "\x01" + `c"}`,
		`{"a":"x\"y` + "\x01", `{"a":"x\"y` + "\x01" + `"`, `{"a":"x` + "\xff" + `y`, `{"a":"x` + "\xff" + `y"}`,
		"{\"a\":\"é漢字😀\"}", "{\"a\":\"\xe2\x82\"}", "{\"a\":\"\xe2\x82", "{\"a\":\"\xed\xa0\x80\"}", "{\"a\":\"\xc0\xaf\"}",
		"{\"a\":\"\xf4\x90\x80\x80\"}", "{\"a\":\"\xf0\x8f\xbf\xbf\"}", "{\"a\":\"\xef\xbf\xbd\"}", "{\"a\":\"\x7f\"}",
		"{\"a\":\"\xe0\x9f\xbf\"}", "{\"a\":\"\xf4\x8f\xbf\xbf\"}", "{\"a\":\"\xf5\x80\x80\x80\"}", "{\"a\":\"\x80\"}",
		`{"a":"tab` + "\t" + `"}`, `{"a" 1}`, `{"a":1,}`, `{,}`, `{1:2}`, `{"a":1 "b":2}`, `{"a":[1,]}`, `{"a":[}`,
		`{"a":[]}`, `{"a":{}}`, `{"a":[[[[]]]]}`, `{"a":1}x`, `{"a":1} `, `{"a":1}{}`, `{"a":1`, `{"a"`, `{"a":`, `{`, `{"`,
		`[1,2]`, `[`, `"s"`, `1`, `-`, `0 1`, `true`, `null `, `[1]x`, ``, ` `, `x`, `}`, `{"a":1}}`, `{"a":[1}`,
		`{"a":{"b":1]}`, `{"a` + "\x01" + `":1}`, `{"a\"b":1,"c\\":2}`, "{\"a\":1,\r\n\t \"b\":2}",
	}
	for _, d := range docs {
		agrees(t, rng, []byte(d))
	}
	// Mutations of a frame in the shape of a tool result.
	frame := []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"event":{"type":"tool/result","seq":12,"text":"ok \tgithub.com/x\t0.1s é \"q\" \u00e9\n","n":[1.5e3,-0,true,false,null]}}}`)
	structural := []byte("{}[]\",:\\ 0a\x01\xe9u")
	for range 3000 {
		agrees(t, rng, mutate(rng, slices.Clone(frame), structural))
	}
}

// TestValidatorLargeDocuments: a large tool result, valid and with a
// fault in each part, fed in 64 KiB reads, agrees with the one pass (which
// splits such a document across goroutines).
func TestValidatorLargeDocuments(t *testing.T) {
	text := strings.Repeat(`ok   \tgithub.com/example/pkg/sub\t0.123s coverage: 81.2% of statements\n`, 20000)
	head := `{"jsonrpc":"2.0","method":"session.event","params":{"event":{"text":"`
	for _, d := range []string{
		head + text + `"}}}`,
		head + text[:len(text)/3] + "\x01" + text[len(text)/3:] + `"}}}`,
		head + text[:len(text)/2] + "\xc3" + text[len(text)/2:] + `"}}}`,
		head + text + `"}}`,
		head + text,
		`{"a":[` + strings.Repeat(`{"b":"`+text[:300]+`"},`, 3000) + `{}]}`,
	} {
		b := []byte(d)
		var cuts []int
		for at := 64 << 10; at < len(b); at += 64 << 10 {
			cuts = append(cuts, at)
		}
		if got, want := fed(b, cuts), onePass(b); got != want {
			t.Fatalf("validator %s, one pass %s", got, want)
		}
	}
}

// FuzzValidator: whatever the document and however it is cut, the
// Validator says what the one validating pass says (verdict, members,
// error offset).
//
//	go test -run '^$' -fuzz FuzzValidator -fuzztime 60s ./jsonscan
func FuzzValidator(f *testing.F) {
	f.Add([]byte(`{"a":[{"b":1},{"c":"d"},{"e":[{"f":2},{"g":3}]}],"h":"i\u00e9"}`), uint64(1))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"t":"a\tb\nc\"d\\"}}`), uint64(2))
	f.Add([]byte("{\"a\":\"x\\\"y\x01"), uint64(3))
	f.Add([]byte(`{"n":-12.5e+7,"t":true,"f":false,"z":null}`), uint64(4))
	f.Fuzz(func(t *testing.T, b []byte, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, seed>>32))
		want := onePass(b)
		if got := fed(b, randomCuts(rng, len(b))); got != want {
			t.Fatalf("%q: validator %s, one pass %s", b, got, want)
		}
	})
}

// BenchmarkValidatorToolResult compares, in one run, validating a 17 MiB
// tool result (an escaped tab or newline every few words) fed in 64 KiB
// reads with the one validating pass over it whole and the trusted pass
// that only finds where values end; it reports each one's time over the
// one pass's.
//
//	go test -run '^$' -bench ValidatorToolResult ./jsonscan
func BenchmarkValidatorToolResult(b *testing.B) {
	line := `ok   \tgithub.com/example/pkg/sub\t0.123s coverage: 81.2% of statements\n`
	doc := []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"event":{"type":"tool/result","text":"` +
		strings.Repeat(line, (17<<20)/len(line)) + `"}}}`)
	var v Validator
	passes := map[string]func(){
		"fed": func() {
			v.Reset()
			for at := 0; at < len(doc); at += 64 << 10 {
				v.Write(doc[at:min(at+64<<10, len(doc))])
			}
			if _, err := v.End(nil); err != nil {
				b.Fatal(err)
			}
		},
		"onepass": func() {
			s := Scanner{B: doc}
			if _, err := s.Members(nil); err != nil {
				b.Fatal(err)
			}
		},
		"trusted": func() {
			s := Scanner{B: doc, Trusted: true}
			if _, err := s.Members(nil); err != nil {
				b.Fatal(err)
			}
		},
	}
	names := []string{"fed", "onepass", "trusted"}
	spent := map[string]time.Duration{}
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		for _, n := range names { // interleaved, so load hits each alike
			start := time.Now()
			passes[n]()
			spent[n] += time.Since(start)
		}
	}
	for _, n := range names {
		b.ReportMetric(float64(spent[n])/float64(spent["onepass"]), n+"/onepass")
	}
	b.ReportMetric(float64(len(doc))*float64(b.N)/spent["fed"].Seconds()/1e9, "GB/s-fed")
}

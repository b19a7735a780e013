package jsonscan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// fedLines feeds b in the pieces cut at cuts to a Validator with
// WriteLine until it reports a newline, and b up to its first newline to
// another with Write, and returns what each says: where the line ended,
// the verdict and the long strings' spans.
func fedLines(b []byte, cuts []int) (write, line string) {
	say := func(v *Validator, end int) string {
		ms, err := v.End(nil)
		return fmt.Sprint(end, " ", v.Len(), " ", verdict(ms, err), v.Long(b[:end]).list)
	}
	end := len(b)
	if k := bytes.IndexByte(b, '\n'); k >= 0 {
		end = k
	}
	var v Validator
	v.Write(b[:end])
	write = say(&v, end)
	var w Validator
	at, got := 0, len(b)
	for _, c := range append(cuts, len(b)) {
		if n := w.WriteLine(b[at:c]); n < c-at {
			got = at + n
			break
		}
		at = c
	}
	return write, say(&w, got)
}

// lineAgrees checks that WriteLine says of b what Write says of b up to
// its first newline, in one piece and cut at random, so that the newline
// comes in every state: inside a string, an escape, a UTF-8 sequence, a
// number or a literal, outside any string, after a bad byte.
func lineAgrees(t *testing.T, rng *rand.Rand, b []byte) {
	t.Helper()
	for _, cuts := range [][]int{nil, randomCuts(rng, len(b)), randomCuts(rng, len(b))} {
		if write, line := fedLines(b, cuts); write != line {
			t.Fatalf("%.300q cut at %v:\n Write     %s\n WriteLine %s", b, cuts, write, line)
		}
	}
}

func TestWriteLineAgreesWithWrite(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	long := strings.Repeat(`ok   \tgithub.com/example/pkg/sub\t0.123s é漢字 \u00e9 \\ \" `, 200)
	mid := len(long) / 2
	docs := []string{
		`{}`, `{}` + "\n", "\n", `{"a":1}` + "\n" + `{"b":2}`, `{"a":1` + "\n", `{"a":tr` + "\n" + `ue}`,
		`{"a":"` + long + `"}`, `{"a":"` + long, `{"a":"` + long + `"`, `{"a":"` + long + `"}x`,
		`{"a":"` + long + `"}` + "\n" + `{"a":"` + long + `"}`,
		`{"a":"` + long[:mid] + "\n" + long[mid:] + `"}`,
		`{"a":"` + long[:mid] + "\x01" + long[mid:] + "\"}\n",
		`{"a":"` + long[:mid] + "\x01" + long[mid:] + "\n\"}",
		`{"a":"` + long[:mid] + "\xc3" + long[mid:] + `"}`,
		`{"a":"` + long[:mid] + "\xc3\n" + long[mid:] + `"}`,
		`{"a":"` + long[:mid] + `\` + "\n" + long[mid:] + `"}`,
		`{"a":"` + long[:mid] + `\x` + long[mid:] + `"}`,
		`{"a":["` + long + `",1,{"b":"` + long + "\"}],\n\"c\":\"" + long + `"}`,
		`{"a":"` + long + `","b":"` + strings.Repeat("Zq09+/=", 2000) + `"}`,
		`{"a":x` + long + "\n" + `"}`,
	}
	frame := []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"event":{"type":"tool/result","seq":12,"text":"ok \tgithub.com/x\t0.1s é \"q\" \u00e9\n","n":[1.5e3,-0,true,false,null]}}}`)
	structural := []byte("{}[]\",:\\ 0a\x01\xe9u\n")
	for _, d := range docs {
		lineAgrees(t, rng, []byte(d))
	}
	for range 3000 {
		lineAgrees(t, rng, mutate(rng, slices.Clone(frame), structural))
	}
	for range 3000 {
		content := randomContent(rng, 40) + "\n" + randomContent(rng, 4)
		lineAgrees(t, rng, []byte(`{"a":"`+content+`","b":["`+content+`"]}`))
	}
}

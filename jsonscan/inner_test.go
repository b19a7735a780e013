package jsonscan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// innerAgrees checks that, for b fed in pieces cut at random, Inner gives
// for every top-level member whose value is an object what Members says
// of that value on its own, and nothing for any other member.
func innerAgrees(t *testing.T, rng *rand.Rand, b []byte) {
	t.Helper()
	var v Validator
	at := 0
	for _, c := range append(randomCuts(rng, len(b)), len(b)) {
		v.Write(b[at:c])
		at = c
	}
	ms, err := v.End(nil)
	if err != nil {
		if _, ok := v.Inner(0, nil); ok {
			t.Fatalf("%.300q: Inner of a document End refused", b)
		}
		return
	}
	for k, m := range ms {
		val := m.Value(b)
		got, ok := v.Inner(k, nil)
		if val[0] != '{' {
			if ok {
				t.Fatalf("%.300q: Inner of member %d, not an object: %v", b, k, got)
			}
			continue
		}
		sc := Scanner{B: val}
		want, err := sc.Members(nil)
		if err != nil || !ok {
			t.Fatalf("%.300q: member %d: Members %v, Inner ok %v", b, k, err, ok)
		}
		for i := range got {
			got[i].KeyStart -= m.ValStart
			got[i].KeyEnd -= m.ValStart
			got[i].ValStart -= m.ValStart
			got[i].ValEnd -= m.ValStart
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%.300q: member %d: Inner %v, Members %v", b, k, got, want)
		}
	}
	if _, ok := v.Inner(len(ms), nil); ok {
		t.Fatalf("%.300q: Inner of a member past the last", b)
	}
}

func TestInnerAgreesWithMembers(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	docs := []string{
		`{}`, `{"a":{}}`, `{"a":{"b":1}}`, `{"a":1,"b":{"c":[1,{"d":2}],"e":{"f":{}},"g":"h"},"i":{"j":null}}`,
		`{"jsonrpc":"2.0","id":7,"method":"llm/payload","params":{"requestId":"r","payload":{"input":[{"type":"message"}]}}}`,
		` { "a" : { "b" : 1 , "c" : "d" } , "e" : [ { "f" : 1 } ] } `, `{"a":{"b":-1.5e3,"c":true,"d":0}}`,
		`[{"a":1}]`, `{"a":[{"b":1}]}`, `{"a":{"b":1}`, `{"a":{"b":1}}x`, `"s"`, `{"a":{"b":{"c":{"d":1}}}}`,
	}
	for _, d := range docs {
		innerAgrees(t, rng, []byte(d))
	}
	frame := []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"event":{"type":"tool/result","seq":12,"text":"ok \tgo\n"},"n":[1.5e3,-0,true,false,null],"s":"x"}}`)
	structural := []byte("{}[]\",:\\ 0a\x01")
	for range 5000 {
		innerAgrees(t, rng, mutate(rng, slices.Clone(frame), structural))
	}
}

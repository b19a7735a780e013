package filter

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// randomPayload builds a random Responses body: reasoning items whose
// ciphertexts repeat (some escaped, so equal values have different bytes),
// items that pair with them (with one or two ids, or none), exempt items,
// non-object items, and random whitespace around every separator.
func randomPayload(rng *rand.Rand, ciphers []string) []byte {
	ws := []string{"", " ", "\n  ", "\t", "\r\n"}
	w := func() string { return ws[rng.IntN(len(ws))] }
	others := []string{
		`{"type":"message","id":"msg_1","role":"assistant","content":"x"}`,
		`{"id":"fc_1"` + w() + `,` + w() + `"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}`,
		`{"type":"function_call_output","call_id":"c1","output":"ok","id":"fco_1"}`,
		`{"type":"compaction","id":"cmp_1","encrypted_content":"zz"}`,
		`{"type":"item_reference","id":"ref_1"}`,
		`{"type":"message","role":"user","content":"no id"}`,
		`{"id":"only"}`,
		`{}`, `{"v":42}`, `{"v":"text"}`, `{"v":null}`, `{"v":[1,{"id":"nested"}]}`,
	}
	n := rng.IntN(9)
	var sb strings.Builder
	sb.WriteString(`{"model":"m",` + w() + `"input":` + w() + `[` + w())
	for k := range n {
		if k > 0 {
			sb.WriteString(w() + "," + w())
		}
		if rng.IntN(2) == 0 {
			c := rng.IntN(len(ciphers))
			sb.WriteString(reasoningItem("rs_"+strconv.Itoa(c), ciphers[c]))
		} else {
			sb.WriteString(others[rng.IntN(len(others))])
		}
	}
	sb.WriteString(w() + `]` + w() + `,"store":false}`)
	return []byte(sb.String())
}

// TestWalkFinalAgreesWithOracleInEveryMode filters random payloads after a
// random baseline in every way a call can run (validating or prevalidated,
// final sum inline or concurrent, one or two fingerprinting goroutines,
// Output or Pieces, with and without stripping) and checks each against
// the oracle: the bytes, the final sum over them and the counts.
func TestWalkFinalAgreesWithOracleInEveryMode(t *testing.T) {
	ciphers := []string{"gAAAAABone", "gAAAAABtwo", `gAAAAAB\u0074wo`, `gAAAAABth\/ree`, "gAAAAAB" + strings.Repeat("Zq", 300), "gAAAAABfive"}
	type mode struct {
		prevalidated, noCopy bool
		ways                 ways
	}
	sumOnly := ways{sumFrom: 0, parallelFrom: parallelHashUnits, overlapFrom: never, trustedOverlapFrom: never}
	twoAfterScan := ways{sumFrom: concurrentSumBytes, parallelFrom: 0, overlapFrom: never, trustedOverlapFrom: never}
	overlapOnly := ways{sumFrom: never, parallelFrom: never, overlapFrom: 0, trustedOverlapFrom: 0}
	modes := []mode{
		{false, false, defaultWays},
		{true, false, defaultWays},
		{false, true, sumOnly},
		{true, true, afterScanWays},
		{false, false, afterScanWays},
		{true, true, twoAfterScan},
		{false, false, allWays},
		{true, false, allWays},
		{false, true, overlapOnly},
	}
	rng := rand.New(rand.NewPCG(21, 22))
	for n := 0; n < 1500; n++ {
		first := randomPayload(rng, ciphers)
		second := randomPayload(rng, ciphers)
		strip := rng.IntN(2) == 0
		if !json.Valid(first) || !json.Valid(second) {
			t.Fatalf("generator made invalid JSON: %s / %s", first, second)
		}
		base, ok := oracleBaseline(first)
		if !ok {
			t.Fatalf("oracle cannot read %s", first)
		}
		doc, err := parseOracle(second)
		if err != nil {
			t.Fatal(err)
		}
		want, err := doc.expected(base, strip)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range modes {
			turn := NewTurn(Options{StripPairedIDs: strip, Prevalidated: m.prevalidated, NoCopy: m.noCopy})
			turn.ways = m.ways
			if _, err := turn.Apply(context.Background(), first, nil); err != nil {
				t.Fatalf("mode %+v: first call of %s: %v", m, first, err)
			}
			res, err := turn.Apply(context.Background(), second, nil)
			if err != nil {
				t.Fatalf("mode %+v: %s: %v", m, second, err)
			}
			got := res.Final(second)
			switch {
			case !bytes.Equal(got, want):
				t.Fatalf("mode %+v strip %v:\n in  %s\n got %s\nwant %s", m, strip, second, got, want)
			case res.SHA256 != sha256.Sum256(got):
				t.Fatalf("mode %+v: the final sum is not over the final bytes of %s", m, second)
			case res.Changed() == bytes.Equal(want, second):
				t.Fatalf("mode %+v: changed %v for %s", m, res.Changed(), second)
			case m.noCopy && res.Output != nil, !m.noCopy && res.Pieces != nil:
				t.Fatalf("mode %+v: output %v pieces %v", m, res.Output != nil, res.Pieces != nil)
			}
			omitted := 0
			for k, typ := range doc.types {
				if typ == "reasoning" && base[doc.ciphers[k]] {
					omitted++
				}
			}
			if res.Omitted.Items != omitted {
				t.Fatalf("mode %+v: omitted %d items, oracle %d", m, res.Omitted.Items, omitted)
			}
		}
	}
}

// TestTwoWorkersErrorIsTheFailure checks that a call fingerprinting on two
// goroutines, after the scan or beside it, reports the failure that
// stopped it, never the internal stop signal, and leaves no baseline,
// whichever goroutine fails.
func TestTwoWorkersErrorIsTheFailure(t *testing.T) {
	over := MaxHashedUnits / 3
	for _, w := range []ways{afterScanWays, allWays} {
		for _, failAt := range []int{0, 1, 2, 5} {
			twoWorkersFail(t, w, over, failAt)
		}
	}
}

func twoWorkersFail(t *testing.T, w ways, over, failAt int) {
	t.Helper()
	var items []string
	for i := range 6 {
		size := 10
		if i >= failAt {
			size = over + 1 // the bound is crossed at the third big item
		}
		items = append(items, reasoningItem("rs_"+strconv.Itoa(i), "gAAAAAB"+strings.Repeat(string(rune('a'+i)), size)))
	}
	turn := NewTurn(Options{Prevalidated: true})
	turn.ways = w
	_, err := turn.Apply(context.Background(), body(items...), nil)
	if failAt == 5 {
		if err != nil {
			t.Fatalf("%+v: one big item: %v", w, err)
		}
		return
	}
	if !diag.Has(err, diag.ReasoningWorkLimit) || turn.HasBaseline() {
		t.Fatalf("%+v: fail at %d: %v, baseline %v", w, failAt, err, turn.HasBaseline())
	}
}

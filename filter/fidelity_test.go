package filter

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// fidelityPayloads are the hand-made payloads in testdata plus generated
// ones with a 17 MiB tool output and data-URL images.
func fidelityPayloads(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata payloads: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	out["generated-17MiB-output"] = payloadgen.Generate(payloadgen.Spec{
		Seed: 7, Size: 18 << 20, Reasoning: 6, CipherBytes: 20 << 10, SummaryParts: 2,
		ToolOutputBytes: 17 << 20, ImageBytes: 300 << 10,
	}).Body
	out["generated-typical"] = payloadgen.Generate(payloadgen.Typical(1 << 20)).Body
	return out
}

// reasoningRaw returns the raw reasoning items of payload and their
// decoded ciphertexts, found with encoding/json.
func reasoningRaw(t *testing.T, payload []byte) (raws []json.RawMessage, ciphers []string) {
	t.Helper()
	var p struct{ Input []json.RawMessage }
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	for _, raw := range p.Input {
		var v struct {
			Type   string `json:"type"`
			Cipher string `json:"encrypted_content"`
		}
		if json.Unmarshal(raw, &v) == nil && v.Type == "reasoning" {
			raws = append(raws, raw)
			ciphers = append(ciphers, v.Cipher)
		}
	}
	return raws, ciphers
}

// TestByteFidelity checks that the output is the input with exactly the
// omitted ranges removed, against the independent oracle (whose output is
// checked to be valid JSON), for a baseline
// of all the payload's reasoning and for one of every other item.
func TestByteFidelity(t *testing.T) {
	for name, payload := range fidelityPayloads(t) {
		raws, ciphers := reasoningRaw(t, payload)
		if len(raws) < 2 {
			t.Fatalf("%s: needs at least two reasoning items", name)
		}
		var half []string
		halfBase := map[string]bool{}
		allBase := map[string]bool{}
		for k, raw := range raws {
			allBase[ciphers[k]] = true
			if k%2 == 0 {
				half = append(half, string(raw))
				halfBase[ciphers[k]] = true
			}
		}
		doc, err := parseOracle(payload)
		if err != nil {
			t.Fatalf("%s: oracle: %v", name, err)
		}
		oracle := map[[2]bool][]byte{}
		want := func(all, strip bool) []byte {
			if w, ok := oracle[[2]bool{all, strip}]; ok {
				return w
			}
			base := halfBase
			if all {
				base = allBase
			}
			w, err := doc.expected(base, strip)
			if err != nil {
				t.Fatalf("%s: oracle: %v", name, err)
			}
			if !json.Valid(w) {
				t.Fatalf("%s: the expected output is not valid JSON", name)
			}
			oracle[[2]bool{all, strip}] = w
			return w
		}
		for _, opts := range []Options{{}, {StripPairedIDs: true}, {StripPairedIDs: true, Prevalidated: true}} {
			for _, w := range []ways{defaultWays, allWays, afterScanWays} {
				// Every way but the default also returns pieces (NoCopy).
				opts.NoCopy = w != defaultWays
				// The first call's baseline is everything in it.
				turn := NewTurn(opts)
				turn.ways = w
				checkFidelity(t, name+" all", turn, payload, want(true, opts.StripPairedIDs))
				// A baseline of every other reasoning item, from an earlier step.
				turn = NewTurn(opts)
				turn.ways = w
				mustApply(t, turn, body(half...))
				checkFidelity(t, name+" half", turn, payload, want(false, opts.StripPairedIDs))
			}
		}
	}
}

func checkFidelity(t *testing.T, name string, turn *Turn, payload, want []byte) {
	t.Helper()
	res, err := turn.Apply(context.Background(), payload, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got := final(res, payload)
	if !bytes.Equal(got, want) {
		at := 0
		for at < min(len(got), len(want)) && got[at] == want[at] {
			at++
		}
		t.Fatalf("%s: output differs from the oracle at byte %d:\n got …%.120s\nwant …%.120s", name, at, got[at:], want[at:])
	}
	if res.Changed() == bytes.Equal(want, payload) {
		t.Fatalf("%s: changed = %v, but the oracle changed %v", name, res.Changed(), !bytes.Equal(want, payload))
	}
}

package filter

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/continuity-dev/continuity/diag"
)

// FuzzFilter runs two calls of one turn (the first sets the baseline) and
// checks the invariants of docs/design.md §6: no panic, only named errors, no
// accepted invalid JSON, valid JSON out, a final sum over the final bytes, no
// baseline after a failure, and, whenever the independent oracle can judge
// the payloads, exactly its bytes.
//
//	go test -run '^$' -fuzz FuzzFilter -fuzztime 60s ./filter
func FuzzFilter(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, b, true)
		f.Add([]byte(`{"input":[]}`), b, true)
		f.Add(b, []byte(`{"input":[`+reasoningItem("rs_x", "gAAAAABfirst-ciphertext_abc==")+`,{"id":"fc_1"}]}`), false)
	}
	f.Fuzz(func(t *testing.T, first, second []byte, strip bool) {
		checkValidator(t, second)
		// Each way the filter can run: validating or prevalidated, the
		// final sum on the calling goroutine or on its own, the fingerprinting
		// after the scan or beside it.
		// NoCopy (pieces instead of Output) rides along with the concurrent
		// validating modes, so the oracle judges it too.
		for _, mode := range []struct {
			prevalidated, concurrent bool
			ways                     ways
		}{{false, false, defaultWays}, {false, true, afterScanWays}, {false, true, allWays}, {true, true, allWays}} {
			prevalidated := mode.prevalidated
			if prevalidated && !(json.Valid(first) && json.Valid(second)) {
				continue // Prevalidated promises valid JSON
			}
			turn := NewTurn(Options{StripPairedIDs: strip, Prevalidated: prevalidated, NoCopy: mode.concurrent && !prevalidated})
			turn.ways = mode.ways
			if !checkCall(t, turn, first) {
				if turn.HasBaseline() {
					t.Fatal("a failed first call left a baseline")
				}
				continue
			}
			res, ok := callChecked(t, turn, second)
			if !ok || prevalidated {
				continue
			}
			base, ok := oracleBaseline(first)
			if !ok {
				continue
			}
			doc, err := parseOracle(second)
			if err != nil || hasLoneSurrogate(doc.ciphers) {
				continue
			}
			want, err := doc.expected(base, strip)
			if err != nil {
				continue
			}
			if got := final(res, second); !bytes.Equal(got, want) {
				t.Fatalf("output differs from the oracle\n got %q\nwant %q", got, want)
			}
		}
	})
}

// checkValidator checks the scanner against encoding/json on a payload
// with no input member: it must accept exactly the valid UTF-8 JSON objects
// (encoding/json alone does not insist on UTF-8).
func checkValidator(t *testing.T, value []byte) {
	t.Helper()
	if bytes.Contains(value, []byte("input")) || bytes.Contains(value, []byte(`\u`)) {
		return // could spell an input member
	}
	wrapped := append(append([]byte(`{"x":`), value...), '}')
	want := json.Valid(wrapped) && utf8.Valid(wrapped)
	for _, prevalidated := range []bool{false, true} {
		if prevalidated && !want {
			continue
		}
		_, err := NewTurn(Options{Prevalidated: prevalidated}).Apply(context.Background(), wrapped, nil)
		if (err == nil) != want {
			t.Fatalf("accepted %q = %v (prevalidated %v), encoding/json says %v", wrapped, err == nil, prevalidated, want)
		}
	}
}

// checkCall applies payload and checks the invariants; it reports success.
func checkCall(t *testing.T, turn *Turn, payload []byte) bool {
	_, ok := callChecked(t, turn, payload)
	return ok
}

func callChecked(t *testing.T, turn *Turn, payload []byte) (Result, bool) {
	t.Helper()
	res, err := turn.Apply(context.Background(), payload, nil)
	if err != nil {
		switch diag.CodeOf(err) {
		case diag.InvalidPayload, diag.UnsupportedReasoning, diag.ItemLimit, diag.ReasoningWorkLimit:
		default:
			t.Fatalf("unnamed error %v", err)
		}
		return res, false
	}
	if !json.Valid(payload) {
		t.Fatalf("accepted invalid JSON %q", payload)
	}
	out := final(res, payload)
	if !json.Valid(out) {
		t.Fatalf("emitted invalid JSON %q from %q", out, payload)
	}
	if res.SHA256 != sha256.Sum256(out) {
		t.Fatal("final sum is not over the final bytes")
	}
	if res.Changed() != (res.Omitted.Items > 0) || len(out) > len(payload) {
		t.Fatalf("output %q does not match omitted %+v", res.Output, res.Omitted)
	}
	return res, true
}

// oracleBaseline is the decoded ciphertexts of the reasoning in a first
// payload, as encoding/json sees them.
func oracleBaseline(first []byte) (map[string]bool, bool) {
	doc, err := parseOracle(first)
	if err != nil || hasLoneSurrogate(doc.ciphers) {
		return nil, false
	}
	base := map[string]bool{}
	for k, typ := range doc.types {
		if typ == "reasoning" {
			base[doc.ciphers[k]] = true
		}
	}
	return base, true
}

// hasLoneSurrogate reports a ciphertext encoding/json decoded lossily
// (unpaired surrogate escapes become U+FFFD); the filter keeps them apart,
// so the oracle cannot judge it.
func hasLoneSurrogate(ciphers []string) bool {
	for _, c := range ciphers {
		if strings.ContainsRune(c, '\uFFFD') {
			return true
		}
	}
	return false
}

package filter

import (
	"context"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// reasoningItem is a reasoning input item with the given id and raw
// (already JSON-escaped) ciphertext.
func reasoningItem(id, cipher string) string {
	return `{"type":"reasoning","id":"` + id + `","summary":[{"type":"summary_text","text":"thinking about ` + id +
		`"}],"encrypted_content":"` + cipher + `"}`
}

// body wraps input items in a Responses request body.
func body(items ...string) []byte {
	return []byte(`{"model":"gpt-5.4","input":[` + strings.Join(items, ",") + `],"store":false}`)
}

// mustApply runs one call that must succeed.
func mustApply(t *testing.T, turn *Turn, payload []byte) Result {
	t.Helper()
	res, err := turn.Apply(context.Background(), payload, nil)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return res
}

// final is the bytes a call sends: its output, or the input when unchanged.
func final(res Result, in []byte) []byte { return res.Final(in) }

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if !diag.Has(err, code) {
		t.Fatalf("got error %v, want %s", err, code)
	}
}

// The ways tests run calls in besides defaultWays: never is a threshold no
// payload reaches.
const never = 1 << 62

var (
	// allWays runs everything that can run beside the scan beside it: the
	// final sum, and the fingerprinting from the first byte.
	allWays = ways{sumFrom: 0, parallelFrom: 0, overlapFrom: 0, trustedOverlapFrom: 0}
	// afterScanWays fingerprints after the scan, on two goroutines, with
	// the final sum on its own.
	afterScanWays = ways{sumFrom: 0, parallelFrom: 0, overlapFrom: never, trustedOverlapFrom: never}
)

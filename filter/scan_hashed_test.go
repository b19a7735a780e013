package filter

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// TestOverlappedCallFailsAsTheScanDoes holds the rule that fingerprinting
// beside the scan changes no outcome: when the hashing fails early (the
// work bound, cancellation) and the scan later finds the payload invalid,
// holding too many items or an unsupported reasoning item, the call fails
// with the scan's error, word for word as when nothing is hashed before
// the scan ends; and when the scan is fine the hashing's error is the
// call's.
func TestOverlappedCallFailsAsTheScanDoes(t *testing.T) {
	over := reasoningItem("rs_over", "gAAAAAB"+strings.Repeat("Q", MaxHashedUnits+1))
	big := reasoningItem("rs_big", "gAAAAAB"+strings.Repeat("Z", 8*ChunkUnits))
	manyReasoning := make([]string, MaxReasoningItems+1)
	for i := range manyReasoning {
		manyReasoning[i] = reasoningItem("rs_"+strconv.Itoa(i), "gAAAAABx")
	}
	invalidTail := func(items ...string) []byte {
		b := body(items...)
		return append(b[:len(b)-1], ",}"...) // a trailing comma
	}
	cases := []struct {
		name    string
		payload []byte
		cancel  bool // cancel at the first chunk hashed
		code    string
	}{
		{"over the bound, then invalid JSON", invalidTail(over), false, diag.InvalidPayload},
		{"over the bound, then unsupported", body(over, `{"type":"reasoning","encrypted_content":""}`), false, diag.UnsupportedReasoning},
		{"over the bound, then too many reasoning items", body(append([]string{over}, manyReasoning...)...), false, diag.ItemLimit},
		{"over the bound, valid", body(over, `{"type":"message","content":"after"}`), false, diag.ReasoningWorkLimit},
		{"cancelled, then invalid JSON", invalidTail(big, big), true, diag.InvalidPayload},
		{"cancelled, valid", body(big, big), true, ""},
	}
	sequential := ways{sumFrom: never, parallelFrom: never, overlapFrom: never, trustedOverlapFrom: never}
	for _, c := range cases {
		apply := func(w ways) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			turn := NewTurn(Options{StripPairedIDs: true})
			turn.ways = w
			var chunks atomic.Int32
			turn.onChunk = func() {
				if chunks.Add(1) == 1 && c.cancel {
					cancel()
				}
			}
			_, err := turn.Apply(ctx, c.payload, nil)
			if err != nil && turn.HasBaseline() {
				t.Fatalf("%s: a failed call left a baseline", c.name)
			}
			return err
		}
		want := apply(sequential)
		switch {
		case c.code == "" && want != context.Canceled:
			t.Fatalf("%s: sequential: %v, want context.Canceled", c.name, want)
		case c.code != "" && !diag.Has(want, c.code):
			t.Fatalf("%s: sequential: %v, want %s", c.name, want, c.code)
		}
		for _, w := range []ways{defaultWays, allWays, afterScanWays} {
			if got := apply(w); got == nil || got.Error() != want.Error() || diag.CodeOf(got) != diag.CodeOf(want) {
				t.Errorf("%s, %+v: %v, want %v", c.name, w, got, want)
			}
		}
	}
}

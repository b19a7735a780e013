package filter

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

func TestItemBound(t *testing.T) {
	for _, tt := range []struct {
		n    int
		code string
	}{{MaxItems, ""}, {MaxItems + 1, diag.InvalidPayload}} {
		in := []byte(`{"input":[` + strings.Repeat(`{},`, tt.n-1) + `{}]}`)
		checkBound(t, "items "+strconv.Itoa(tt.n), in, tt.code)
	}
}

func TestReasoningItemBound(t *testing.T) {
	for _, tt := range []struct {
		n    int
		code string
	}{{MaxReasoningItems, ""}, {MaxReasoningItems + 1, diag.ItemLimit}} {
		items := make([]string, tt.n)
		for k := range items {
			// Duplicates count: half the items repeat one ciphertext.
			items[k] = reasoningItem("rs_"+strconv.Itoa(k), "gAAAAAB"+strconv.Itoa(k%(tt.n/2)))
		}
		checkBound(t, "reasoning items "+strconv.Itoa(tt.n), body(items...), tt.code)
	}
}

func TestWorkBound(t *testing.T) {
	half := MaxHashedUnits / 2
	ascii := func(n int) string { return strings.Repeat("A", n) }
	tests := []struct {
		name  string
		in    []byte
		code  string
		units int
	}{
		{"at limit over two items", body(reasoningItem("rs_1", ascii(half)), reasoningItem("rs_2", ascii(half-1)+"B")), "", MaxHashedUnits},
		{"one past", body(reasoningItem("rs_1", ascii(half)), reasoningItem("rs_2", ascii(half+1))), diag.ReasoningWorkLimit, 0},
		// Units, not bytes: 2-byte "é" counts once, so this is 64 MiB + 1 Mi bytes but 64 Mi units.
		{"multi-byte at limit", body(reasoningItem("rs_1", strings.Repeat("é", 1<<20)+ascii(MaxHashedUnits-1<<20))), "", MaxHashedUnits},
		// Escapes count once per decoded unit: \u0041 is 6 bytes, 1 unit.
		{"escaped past limit", body(reasoningItem("rs_1", strings.Repeat(`\u0041`, 16)+ascii(MaxHashedUnits-15))), diag.ReasoningWorkLimit, 0},
	}
	for _, tt := range tests {
		res := checkBound(t, tt.name, tt.in, tt.code)
		if tt.code == "" && res.Omitted.CodeUnits != tt.units {
			t.Errorf("%s: code units %d, want %d", tt.name, res.Omitted.CodeUnits, tt.units)
		}
	}
}

// checkBound applies in to a fresh turn and checks the outcome: success
// when code is empty, else that code and no baseline.
func checkBound(t *testing.T, name string, in []byte, code string) Result {
	t.Helper()
	turn := NewTurn(Options{})
	res, err := turn.Apply(context.Background(), in, nil)
	if code == "" {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return res
	}
	if !diag.Has(err, code) || turn.HasBaseline() {
		t.Errorf("%s: got %v (baseline %v), want %s", name, err, turn.HasBaseline(), code)
	}
	return res
}

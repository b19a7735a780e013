package filter

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"testing"
	"unicode/utf16"

	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// describedItems describes a body's items the way a bridge does (decoded,
// which only a test may do to a payload).
func describedItems(t *testing.T, body []byte) []DescribedItem {
	t.Helper()
	var req struct {
		Input []map[string]json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	out := make([]DescribedItem, len(req.Input))
	for i, it := range req.Input {
		var typ, cipher string
		_ = json.Unmarshal(it["type"], &typ)
		_, hasID := it["id"]
		out[i] = DescribedItem{Type: typ, HasID: hasID}
		if typ == "reasoning" && json.Unmarshal(it["encrypted_content"], &cipher) == nil {
			sum := sha256.Sum256([]byte(cipher))
			out[i].SHA256, out[i].Units = &sum, len(utf16.Encode([]rune(cipher)))
		}
	}
	return out
}

// TestApplyDescribedDecidesLikeApply: on the same turn of generated payloads,
// a described payload omits and strips exactly what Apply cuts from the bytes.
func TestApplyDescribedDecidesLikeApply(t *testing.T) {
	first := payloadgen.Generate(payloadgen.Typical(256 << 10)).Body
	bytesTurn := NewTurn(Options{StripPairedIDs: true})
	describedTurn := NewTurn(Options{StripPairedIDs: true})
	for step, body := range [][]byte{first, first} {
		want, err := bytesTurn.Apply(context.Background(), body, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := describedTurn.ApplyDescribed(context.Background(), describedItems(t, body), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Omitted != want.Omitted || len(got.Omit) != want.Omitted.Items || len(got.Strip) != want.Omitted.StrippedIDs {
			t.Fatalf("step %d: described %+v (%d omit, %d strip), bytes form %+v", step+1, got.Omitted, len(got.Omit), len(got.Strip), want.Omitted)
		}
		if want.Omitted.Items == 0 {
			t.Fatalf("step %d: the generated history has no reasoning to omit", step+1)
		}
	}
	if _, err := NewTurn(Options{}).ApplyDescribed(context.Background(), []DescribedItem{{Type: "reasoning"}}, nil); err == nil {
		t.Fatal("a reasoning item without sha256 and units must be refused")
	}
}

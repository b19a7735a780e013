package filter

import (
	"context"

	"github.com/continuity-dev/continuity/diag"
)

// A described payload is the digest form of llm/payload (the wire method
// llm/payloadDigest, docs/protocol.md §14.1): a bridge that holds the body
// as an object describes each input item instead of sending the bytes.
// "Digest" is the wire's name for it; inside this package the word is not
// used, so the form is never confused with the final sum (finalSum, the
// SHA-256 of the bytes a call sends, Result.SHA256).

// DescribedItem is one top-level input item as a bridge describes it in a
// described payload: the bridge keeps the body (a JavaScript
// object in pi) and sends, per item, its type, whether it has an id, and
// for reasoning the SHA-256 of its encrypted_content and that string's
// length in UTF-16 code units. The plugin then decides exactly as Apply
// would on the bytes, and the bridge cuts the items itself.
type DescribedItem struct {
	Type   string
	HasID  bool
	SHA256 *[32]byte // reasoning items only; nil means no usable encrypted_content
	Units  int       // UTF-16 code units of encrypted_content (reasoning only)
}

// DescribedResult says which items to omit and whose id member to remove,
// by index into the items, ascending.
type DescribedResult struct {
	Omit    []int
	Strip   []int
	Omitted Omitted
}

// ApplyDescribed is Apply for a described payload: the same bounds, the same
// baseline rule (the first successful call of the turn sets it, a failed
// or overlapping call leaves none) and the same paired-id rule, decided on
// the items' fingerprints instead of the body's bytes.
func (t *Turn) ApplyDescribed(ctx context.Context, items []DescribedItem, revoked func() error) (DescribedResult, error) {
	if !t.busy.CompareAndSwap(false, true) {
		return DescribedResult{}, diag.New(diag.ProcessingOverlap, "another payload of this turn is being filtered")
	}
	defer t.busy.Store(false)
	poll := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if revoked != nil {
			return revoked()
		}
		return nil
	}
	if err := poll(); err != nil {
		return DescribedResult{}, err
	}
	if len(items) > MaxItems {
		return DescribedResult{}, diag.Newf(diag.InvalidPayload, "input has more than %d items", MaxItems).With("limit", MaxItems)
	}
	reasoning, units := 0, 0
	for i, it := range items {
		if it.Type != "reasoning" {
			continue
		}
		if it.SHA256 == nil || it.Units <= 0 {
			return DescribedResult{}, diag.Newf(diag.UnsupportedReasoning, "reasoning item %d has no sha256 and units (of its encrypted_content)", i)
		}
		if reasoning++; reasoning > MaxReasoningItems {
			return DescribedResult{}, diag.Newf(diag.ItemLimit, "more than %d reasoning items", MaxReasoningItems).With("limit", MaxReasoningItems)
		}
		if units += it.Units; units > MaxHashedUnits {
			return DescribedResult{}, diag.Newf(diag.ReasoningWorkLimit, "more than %d code units of encrypted content", MaxHashedUnits).With("limit", MaxHashedUnits)
		}
	}

	base := t.baseline.Load()
	first := base == nil
	var fresh baseline
	if first {
		fresh = make(baseline, reasoning)
	}
	// At most one strip follows each reasoning item, and every omission is one.
	res := DescribedResult{Omit: make([]int, 0, reasoning), Strip: make([]int, 0, reasoning)}
	prevOmitted := false
	for i, it := range items {
		omit := false
		if it.Type == "reasoning" {
			if first {
				fresh[*it.SHA256] = struct{}{}
				omit = true // a turn's first call omits all its reasoning: it is history
			} else {
				_, omit = (*base)[*it.SHA256]
			}
		}
		switch {
		case omit:
			res.Omit = append(res.Omit, i)
			res.Omitted.Items++
			res.Omitted.CodeUnits += it.Units
		case prevOmitted && t.opts.StripPairedIDs && it.HasID && ordinary(it.Type):
			res.Strip = append(res.Strip, i)
			res.Omitted.StrippedIDs++
		}
		prevOmitted = omit
	}
	if err := poll(); err != nil {
		return DescribedResult{}, err
	}
	if first {
		t.baseline.Store(&fresh)
	}
	return res, nil
}

// ordinary reports whether an item of this type is ordinary content: not
// reasoning, and not an item whose id is its content (compaction,
// item_reference), which is never stripped.
func ordinary(typ string) bool {
	return typ != "reasoning" && typ != "compaction" && typ != "item_reference"
}

package boundary

import "sort"

// candidate is one item of the candidate state: the union of the
// model-visible view and the durable witness store. InView says whether the
// item is still in the retained history (and so costs tokens there).
type candidate struct {
	Item
	inView bool
}

// mergeCandidates unions view and store by (seq, index), the view's copy
// winning, in event order. The store is read independently of the
// transcript (step 2), so witnesses survive compaction and restart.
func mergeCandidates(view, stored []Item) []candidate {
	byKey := make(map[key]int, len(view)+len(stored))
	out := make([]candidate, 0, len(view)+len(stored))
	for _, it := range view {
		byKey[it.key()] = len(out)
		out = append(out, candidate{Item: it, inView: true})
	}
	for _, it := range stored {
		if _, ok := byKey[it.key()]; !ok {
			byKey[it.key()] = len(out)
			out = append(out, candidate{Item: it})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Seq < b.Seq || a.Seq == b.Seq && a.Index < b.Index
	})
	return out
}

// supersede is step 3's detector: for every item that a later item with the
// same supersession key replaces, it returns the later item's event seq. A
// tool error is also superseded by the next later attempt at the same
// target (target.go), whatever that attempt's outcome.
func supersede(cands []candidate) map[key]int64 {
	latest := map[string]int64{}
	attempted := map[string]int64{}
	by := map[key]int64{}
	for i := len(cands) - 1; i >= 0; i-- {
		c := cands[i]
		k, ak := c.supersessionKey(), c.attemptKey()
		if seq, ok := latest[k]; ok && k != "" {
			by[c.key()] = seq
		} else if seq, ok := attempted[ak]; ok && ak != "" && c.Kind == KindError {
			by[c.key()] = seq
		}
		if k != "" {
			if _, ok := latest[k]; !ok {
				latest[k] = c.Seq
			}
		}
		if ak != "" {
			attempted[ak] = c.Seq // the nearest later attempt
		}
	}
	return by
}

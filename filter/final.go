package filter

import (
	"errors"
	"sync/atomic"
)

// items is where walkFinal finds the input items: a scanned doc, or a
// progress that hands them over as the scan finds them.
type items interface {
	// item returns input item k and the id cuts it refers to; ok is false
	// when input has k items. It may block until the scan gets there.
	item(k int) (it item, cuts []span, ok bool, err error)
}

// item is a scanned doc's item k.
func (d *doc) item(k int) (item, []span, bool, error) {
	if k >= len(d.items) {
		return item{}, nil, false, nil
	}
	return d.items[k], d.idRanges, true, nil
}

// walkFinal yields, in order, the byte ranges of the payload that make up
// the final bytes: the payload without its omitted reasoning items (each with
// the separator that docs/design.md §2.3's cut rules give it) and, when strip is
// set, without the id members of ordinary items that directly follow an
// omitted item. omit(r) says whether the r-th reasoning item is omitted; it
// may block until that is decided, which lets the final sum follow the
// fingerprints item by item, and src may block until the scan has found the
// next item, which lets a Stream follow the scan. The bytes after the
// last item are yielded only once src says there is no further item. It
// returns the number of id members stripped.
//
// The cut rules, item by item: a dropped item after a kept one goes with
// the separator before it; a run of dropped items at the start of the array
// goes with the separator after it; when every item is dropped, the items
// and the separators between them go and the brackets keep their
// whitespace. (appendCuts states the same rules for a whole container.)
func walkFinal(payload []byte, src items, strip bool, omit func(r int) (bool, error), emit func(span) error) (stripped int, err error) {
	first, _, ok, err := src.item(0)
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return 0, emit(span{0, len(payload)})
	}
	pos := first.start
	if err := emit(span{0, pos}); err != nil {
		return 0, err
	}
	keptAny, prevOmitted := false, false
	var last item
	r := 0 // reasoning items seen
	for k := 0; ; k++ {
		it, cuts, ok, err := src.item(k)
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		last = it
		dropped := false
		if it.kind.encrypted() {
			if dropped, err = omit(r); err != nil {
				return 0, err
			}
			r++
		}
		if dropped {
			if keptAny {
				pos = it.end // the separator before it and the item
			}
			prevOmitted = it.kind == kindReasoning // only reasoning has paired ids
			continue
		}
		if !keptAny {
			pos, keptAny = it.start, true // the leading run and the separator after it
		}
		if prevOmitted && strip && it.ids > 0 && it.kind == kindOrdinary {
			for _, c := range cuts[it.idRemove.start:it.idRemove.end] {
				if err := emit(span{pos, c.start}); err != nil {
					return 0, err
				}
				pos = c.end
			}
			stripped += int(it.ids)
		}
		if err := emit(span{pos, it.end}); err != nil {
			return 0, err
		}
		pos, prevOmitted = it.end, false
	}
	if !keptAny {
		pos = last.end // everything went
	}
	return stripped, emit(span{pos, len(payload)})
}

// decisions publishes, in order, whether each reasoning item is omitted, so
// that the final sum, running on another core, can hash the final bytes up to the
// first item still being fingerprinted.
type decisions struct {
	omit    []bool
	decided atomic.Int64  // omit[:decided] are final
	stopped atomic.Bool   // the call failed: the final sum must stop
	wake    chan struct{} // signalled after each decision and on stop
}

func newDecisions() *decisions {
	return &decisions{wake: make(chan struct{}, 1)}
}

// init sizes the decisions for every item the scan may publish: once it
// has counted them, or the bound when the hashing follows the scan.
func (ds *decisions) init(n int) { ds.omit = make([]bool, n) }

// set publishes the next decision. All earlier ones must be published.
func (ds *decisions) set(r int, omit bool) {
	ds.omit[r] = omit
	ds.decided.Store(int64(r + 1))
	ds.signal()
}

// stop tells a waiting or hashing final sum that the call failed.
func (ds *decisions) stop() {
	ds.stopped.Store(true)
	ds.signal()
}

func (ds *decisions) signal() {
	select {
	case ds.wake <- struct{}{}:
	default:
	}
}

// await returns decision r once it is published.
func (ds *decisions) await(r int) (bool, error) {
	for ds.decided.Load() <= int64(r) {
		if ds.stopped.Load() {
			return false, errStopped
		}
		<-ds.wake
	}
	return ds.omit[r], nil
}

// errStopped ends a worker of a call (a hasher's, the final sum) that has
// already failed with its own error.
var errStopped = errors.New("filter: the call stopped")

// frontier publishes, while the scan runs, how far the payload is known
// to be final bytes already: up to the end of the last input item before
// the first reasoning item (nothing before it can be cut). The final
// sum hashes that far while the scan goes on. Only the scanning goroutine
// advances it.
type frontier struct {
	at     atomic.Int64
	frozen bool
	wake   chan struct{}
}

func newFrontier() *frontier { return &frontier{wake: make(chan struct{}, 1)} }

// advance publishes that the bytes before p are final, unless frozen.
func (f *frontier) advance(p int) {
	if f == nil || f.frozen {
		return
	}
	f.at.Store(int64(p))
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// freeze stops the frontier at a reasoning item, which may be cut.
func (f *frontier) freeze() {
	if f != nil {
		f.frozen = true
	}
}

package filter

import (
	"context"
	"crypto/sha256"
	"errors"
	"hash"
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
// may block until that is decided, which lets the digest follow the
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
// that a digest running on another core can hash the final bytes up to the
// first item still being fingerprinted.
type decisions struct {
	omit    []bool
	decided atomic.Int64  // omit[:decided] are final
	stopped atomic.Bool   // the call failed: the digest must stop
	wake    chan struct{} // signalled after each decision and on stop
}

func newDecisions() *decisions {
	return &decisions{wake: make(chan struct{}, 1)}
}

// init sizes the decisions once the scan has counted the reasoning items,
// before the digest is told about them.
func (ds *decisions) init(n int) { ds.omit = make([]bool, n) }

// set publishes the next decision. All earlier ones must be published.
func (ds *decisions) set(r int, omit bool) {
	ds.omit[r] = omit
	ds.decided.Store(int64(r + 1))
	ds.signal()
}

// all publishes the same decision for every item at once (a turn's first
// call omits all its reasoning, whatever the fingerprints are).
func (ds *decisions) all(omit bool) {
	for r := range ds.omit {
		ds.omit[r] = omit
	}
	ds.decided.Store(int64(len(ds.omit)))
	ds.signal()
}

// stop tells a waiting or hashing digest that the call failed.
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

// errStopped ends a digest whose call has already failed with its own error.
var errStopped = errors.New("filter: the call stopped")

// frontier publishes, while the scan runs, how far the payload is known
// to be final bytes already: up to the end of the last input item before
// the first reasoning item (nothing before it can be cut). The digest
// hashes that far while the scan goes on. Only the scanning goroutine
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

// digest is SHA-256 over the final bytes, computed while they are decided:
// first the payload up to the scan's frontier while the scan runs, then,
// once the scan hands over the document, the rest of the final bytes as the
// omit decisions arrive. It hashes in chunks and checks for cancellation
// and a failed call before each one, so it never runs on after its call has
// ended.
type digest struct {
	ctx     context.Context
	ds      *decisions
	front   *frontier
	docs    chan *doc // the scanned document, once
	onChunk func()    // test hook: called after each chunk is hashed
	h       hash.Hash
	err     error
	done    chan struct{}
}

// startDigest hashes the final bytes of payload on its own goroutine. The
// scan must advance front and then hand its document to scanned (or the
// call stop through ds).
func startDigest(ctx context.Context, payload []byte, strip bool, ds *decisions, front *frontier, onChunk func()) *digest {
	g := &digest{ctx: ctx, ds: ds, front: front, docs: make(chan *doc, 1), onChunk: onChunk, h: sha256.New(), done: make(chan struct{})}
	go func() {
		defer close(g.done)
		hashed, d, err := g.ahead(payload)
		if err != nil {
			g.err = err
			return
		}
		// The first hashed bytes of the final bytes are payload[:hashed]:
		// nothing before the frontier is cut.
		skip := hashed
		_, g.err = walkFinal(payload, d, strip, ds.await, func(c span) error {
			b := payload[c.start:c.end]
			if skip >= len(b) {
				skip -= len(b)
				return nil
			}
			b, skip = b[skip:], 0
			return g.write(b)
		})
	}()
	return g
}

// ahead hashes the payload up to the frontier as the scan moves it, until
// the scan hands over its document, and returns how much it hashed.
func (g *digest) ahead(payload []byte) (int, *doc, error) {
	hashed := 0
	for {
		if to := int(g.front.at.Load()); to > hashed {
			if err := g.write(payload[hashed:to]); err != nil {
				return 0, nil, err
			}
			hashed = to
			continue
		}
		select {
		case d := <-g.docs:
			return hashed, d, nil
		case <-g.front.wake:
		case <-g.ds.wake:
			if g.ds.stopped.Load() {
				return 0, nil, errStopped
			}
		}
	}
}

// scanned hands the scan's document to the digest; the decisions must be
// initialised.
func (g *digest) scanned(d *doc) { g.docs <- d }

func (g *digest) write(b []byte) error {
	for len(b) > 0 {
		if err := g.ctx.Err(); err != nil {
			return err
		}
		if g.ds.stopped.Load() {
			return errStopped
		}
		n := min(len(b), ChunkUnits)
		g.h.Write(b[:n])
		b = b[n:]
		if g.onChunk != nil {
			g.onChunk()
		}
	}
	return nil
}

// wait returns the digest once it is complete, or the error that ended it.
func (g *digest) wait() (sum [32]byte, err error) {
	<-g.done
	if g.err != nil {
		return sum, g.err
	}
	g.h.Sum(sum[:0])
	return sum, nil
}

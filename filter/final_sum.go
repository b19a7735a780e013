package filter

import (
	"context"
	"crypto/sha256"
	"hash"
)

// finalSum is the SHA-256 of a call's final bytes (Result.SHA256) computed
// on its own goroutine while they are decided — not to be confused with a
// fingerprint (the SHA-256 of one item's encrypted_content, fingerprint.go)
// or with a described payload (described.go):
// first the payload up to the scan's frontier while the scan runs, then,
// once the scan hands over the document, the rest of the final bytes as the
// omit decisions arrive. It hashes in chunks and checks for cancellation
// and a failed call before each one, so it never runs on after its call has
// ended.
type finalSum struct {
	ctx     context.Context
	ds      *decisions
	front   *frontier
	docs    chan *doc // the scanned document, once
	onChunk func()    // test hook: called after each chunk is hashed
	h       hash.Hash
	err     error
	done    chan struct{}
	// spans are the final bytes as ranges of the payload, in order, and
	// stripped the id members the walk removed: once done, finish builds
	// the output from them instead of walking the payload again.
	spans    []span
	stripped int
}

// startFinalSum hashes the final bytes of payload on its own goroutine. The
// scan must advance front and then hand its document to scanned (or the
// call stop through ds).
func startFinalSum(ctx context.Context, payload []byte, strip bool, ds *decisions, front *frontier, onChunk func()) *finalSum {
	g := &finalSum{ctx: ctx, ds: ds, front: front, docs: make(chan *doc, 1), onChunk: onChunk, h: sha256.New(), done: make(chan struct{})}
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
		g.spans = make([]span, 0, len(d.items)+1) // one per kept item and the tail, unless ids are cut
		g.stripped, g.err = walkFinal(payload, d, strip, ds.await, func(c span) error {
			g.spans = append(g.spans, c)
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
func (g *finalSum) ahead(payload []byte) (int, *doc, error) {
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

// scanned hands the scan's document to the final sum; the decisions must be
// initialised.
func (g *finalSum) scanned(d *doc) { g.docs <- d }

func (g *finalSum) write(b []byte) error {
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

// wait returns the final sum once it is complete, or the error that ended it.
func (g *finalSum) wait() (sum [32]byte, err error) {
	<-g.done
	if g.err != nil {
		return sum, g.err
	}
	g.h.Sum(sum[:0])
	return sum, nil
}

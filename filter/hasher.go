package filter

import (
	"errors"
	"sync"
	"sync/atomic"
)

// hasher fingerprints the encrypted items of one call in input order,
// taking them as the scan publishes them (prog), and publishes the
// caller's decision on each in order once the caller has said how to
// decide (decide): the hashing may run ahead of that. Its workers (work)
// take items from a shared counter, so one, two or a worker that joins
// late share the items without coordination beyond that counter; each
// polls cancellation and revocation per chunk and the work bound is shared
// (fingerprinter), so every worker stops within one chunk. It is the one
// fingerprinting of Turn.Apply, Select and Stream (see scanHashed and
// Stream).
type hasher struct {
	payload []byte
	prog    *progress
	ds      *decisions // sized before the first decision: readers index it lock-free

	next atomic.Int64 // the next candidate to take

	mu        sync.Mutex           // guards the fields below
	omit      func(Candidate) bool // nil until decide
	done      []hashed             // by candidate, filled as workers finish them
	published int                  // decisions made: done[:published] are decided
	omitted   Omitted              // what the decisions made so far cut
}

// hashed is one fingerprinted candidate waiting for its turn to be decided.
type hashed struct {
	ok    bool
	c     Candidate
	kind  itemKind
	units int
}

// newHasher fingerprints the candidates prog publishes and decides them
// into ds, which must be sized for every candidate the scan may publish.
func newHasher(payload []byte, prog *progress, ds *decisions, candidates int) *hasher {
	return &hasher{payload: payload, prog: prog, ds: ds, done: make([]hashed, 0, candidates)}
}

// decide starts the decisions: omit is called on every candidate hashed so
// far and, from now on, on each as soon as it and those before it are.
func (h *hasher) decide(omit func(Candidate) bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.omit = omit
	h.publish()
}

// work fingerprints candidates until there are none left or the call fails.
// It returns nil when the scan ended without further candidates, errStopped
// when the scan failed or another worker's error stopped it, and the
// hashing's own error otherwise (after which f.stop stops the others).
func (h *hasher) work(f *fingerprinter) error {
	for {
		r := int(h.next.Add(1) - 1)
		it, index, ok, err := h.prog.candidate(r)
		if err != nil || !ok {
			return err
		}
		if f.stop.Load() {
			return errStopped
		}
		sum, units, err := f.fingerprint(h.payload[it.cipher.start:it.cipher.end], it.cipherPlain)
		if err != nil {
			f.stop.Store(true)
			return err
		}
		c := Candidate{Kind: Reasoning, Index: index, Fingerprint: sum}
		if it.kind == kindCompaction {
			c.Kind = Compaction
		}
		h.finished(r, hashed{ok: true, c: c, kind: it.kind, units: units})
	}
}

// finished records candidate r and publishes what that makes decidable.
func (h *hasher) finished(r int, x hashed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.done); r >= n {
		h.done = roomFor(h.done, r+1-n)[:r+1]
		clear(h.done[n:r]) // not hashed yet
	}
	h.done[r] = x
	h.publish()
}

// publish decides, in order, every candidate hashed whose predecessors are
// all decided, once decide has been called. h.mu must be held.
func (h *hasher) publish() {
	for h.omit != nil && h.published < len(h.done) && h.done[h.published].ok {
		d := &h.done[h.published]
		omit := h.omit(d.c)
		if omit {
			h.omitted.count(d.kind, d.units)
		}
		h.ds.set(h.published, omit)
		h.published++
	}
}

// fingerprints returns every candidate's fingerprint, in order, once the
// workers have all returned without error.
func (h *hasher) fingerprints() baseline {
	m := make(baseline, len(h.done))
	for _, x := range h.done {
		m[x.c.Fingerprint] = struct{}{}
	}
	return m
}

// joined is the error of a call whose two workers returned a and b: the
// hashing's own error when there is one; errStopped alone means the scan
// failed, which the caller reports itself.
func joined(a, b error) error {
	if a == nil || errors.Is(a, errStopped) {
		a = b
	}
	if errors.Is(a, errStopped) {
		return nil
	}
	return a
}

// count adds one omitted item of kind with units of ciphertext.
func (o *Omitted) count(kind itemKind, units int) {
	if kind == kindCompaction {
		o.Compactions++
	} else {
		o.Items++
	}
	o.CodeUnits += units
}

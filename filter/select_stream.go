package filter

import (
	"context"
	"sync/atomic"

	"github.com/continuity-dev/continuity/jsonscan"
)

// SelectStream is Select for a caller that sends the final bytes on as they
// become final — a proxy streaming the request to its upstream — instead
// of holding them until the call returns: once the payload is scanned,
// emit is called, in order and from one other goroutine, with the pieces of
// the final bytes (slices of payload), each as soon as every decision
// before it is made, while the fingerprinting goes on. The pieces joined
// are exactly what Select would return. An error from emit ends the
// writing (the fingerprinting still finishes and the counts are returned
// with that error); a failed or cancelled call stops emitting and returns
// its error, and the caller must treat what it emitted as incomplete.
// Result.SHA256 is not computed (zero) and Output and Pieces are nil; no
// goroutine is left running when SelectStream returns.
func SelectStream(ctx context.Context, payload []byte, opts Options, revoked func() error,
	omit func(Candidate) bool, emit func([]byte) error) (Result, error) {
	fp := fingerprinter{ctx: ctx, revoked: revoked, spent: new(atomic.Int64)}
	if err := fp.poll(); err != nil {
		return Result{}, err
	}
	sc := scanner{Scanner: jsonscan.Scanner{B: payload, Trusted: opts.Prevalidated}, compaction: true}
	d, err := sc.scan()
	if err != nil {
		return Result{}, named(err)
	}
	if d.problem != nil {
		return Result{}, d.problem
	}
	ds := newDecisions()
	ds.init(len(d.reasoning))
	type written struct {
		stripped int
		err      error
	}
	done := make(chan written, 1)
	go func() {
		n, err := walkFinal(payload, d, opts.StripPairedIDs, ds.await, emit)
		done <- written{n, err}
	}()
	t := &Turn{opts: opts, parallelFrom: parallelHashUnits}
	sums := make([][32]byte, len(d.reasoning))
	units := make([]int, len(d.reasoning))
	herr := t.hashAll(&fp, payload, d, sums, units, func(r int) {
		k := d.reasoning[r]
		c := Candidate{Kind: Reasoning, Index: k, Fingerprint: sums[r]}
		if d.items[k].kind == kindCompaction {
			c.Kind = Compaction
		}
		ds.set(r, omit(c))
	})
	if herr == nil {
		herr = fp.poll()
	}
	if herr != nil {
		ds.stop()
	}
	w := <-done
	if herr != nil {
		return Result{}, herr
	}
	var res Result
	for r := range d.reasoning {
		if ds.omit[r] {
			res.Omitted.count(d.items[d.reasoning[r]].kind, units[r])
		}
	}
	res.Omitted.StrippedIDs = w.stripped
	return res, w.err
}

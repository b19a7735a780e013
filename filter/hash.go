package filter

import (
	"errors"
	"sync"
	"sync/atomic"
)

// decide fingerprints every reasoning item and publishes, in order, whether
// each is omitted: in a turn's first call all of them (their fingerprints
// become the baseline, returned as fresh), later those the baseline holds.
// Enough ciphertext is hashed on two goroutines (see hashAll).
func (t *Turn) decide(fp *fingerprinter, payload []byte, d *doc, base *baseline, ds *decisions) (Result, *baseline, error) {
	sums := make([][32]byte, len(d.reasoning))
	units := make([]int, len(d.reasoning))
	publish := func(r int) {
		if base != nil {
			_, omit := (*base)[sums[r]]
			ds.set(r, omit)
		}
	}
	if err := t.hashAll(fp, payload, d, sums, units, publish); err != nil {
		return Result{}, nil, err
	}
	var res Result
	var fresh *baseline
	if base == nil {
		m := make(baseline, len(sums))
		fresh = &m
	}
	for r, sum := range sums {
		if fresh != nil {
			(*fresh)[sum] = struct{}{}
		}
		if ds.omit[r] { // every decision is published once hashAll returns
			res.Omitted.count(d.items[d.reasoning[r]].kind, units[r])
		}
	}
	return res, fresh, nil
}

// parallelHashUnits is the ciphertext (in bytes) from which a call hashes
// its reasoning items on two goroutines.
const parallelHashUnits = 256 << 10

// hashAll fingerprints every reasoning item into sums and units and calls
// publish(r) for each r in order, as soon as items 0..r are all hashed.
// With two or more items and enough ciphertext, two goroutines take items
// in turn from the front, so the digest waiting on the decisions is never
// far behind; each polls cancellation and revocation per chunk and the
// work bound is shared, so the call still stops within one chunk per
// goroutine. hashAll returns only when both have stopped.
func (t *Turn) hashAll(fp *fingerprinter, payload []byte, d *doc, sums [][32]byte, units []int, publish func(int)) error {
	cipher := func(r int) (*item, []byte) {
		it := &d.items[d.reasoning[r]]
		return it, payload[it.cipher.start:it.cipher.end]
	}
	total := 0
	for r := range d.reasoning {
		_, c := cipher(r)
		total += len(c)
	}
	if len(d.reasoning) < 2 || total < t.parallelFrom {
		for r := range d.reasoning {
			it, c := cipher(r)
			var err error
			if sums[r], units[r], err = fp.fingerprint(c, it.cipherPlain); err != nil {
				return err
			}
			publish(r)
		}
		return nil
	}

	var next atomic.Int64 // the next item to take
	var mu sync.Mutex     // guards hashed and published
	hashed := make([]bool, len(d.reasoning))
	published := 0
	fp.stop = new(atomic.Bool)
	work := func(f *fingerprinter) error {
		for {
			r := int(next.Add(1) - 1)
			if r >= len(d.reasoning) || f.stop.Load() {
				return nil
			}
			it, c := cipher(r)
			sum, n, err := f.fingerprint(c, it.cipherPlain)
			if err != nil {
				f.stop.Store(true)
				return err
			}
			mu.Lock()
			sums[r], units[r], hashed[r] = sum, n, true
			for published < len(hashed) && hashed[published] {
				publish(published)
				published++
			}
			mu.Unlock()
		}
	}
	other := make(chan error, 1)
	sibling := fp.sibling()
	go func() { other <- work(sibling) }()
	err := work(fp)
	if oerr := <-other; err == nil || errors.Is(err, errStopped) {
		err = oerr
	}
	if errors.Is(err, errStopped) {
		err = nil // unreachable: a stop follows another goroutine's error
	}
	return err
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

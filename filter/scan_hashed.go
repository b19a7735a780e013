package filter

import "sync/atomic"

// ways are the sizes from which a call spreads its work over goroutines;
// below each, starting a goroutine costs more than it saves. Tests lower
// them to cover every way.
type ways struct {
	// sumFrom is the payload size from which the final sum (the
	// SHA-256 of the final bytes) runs on its own goroutine (concurrentSumBytes).
	sumFrom int
	// parallelFrom is the ciphertext size from which two goroutines
	// fingerprint once the scan is done (parallelHashUnits).
	parallelFrom int
	// overlapFrom is the payload size from which the fingerprinting runs
	// beside the validating scan instead of after it (overlapBytes), and
	// trustedOverlapFrom beside a trusted scan (trustedOverlapBytes).
	overlapFrom        int
	trustedOverlapFrom int
}

// defaultWays are the measured thresholds.
var defaultWays = ways{sumFrom: concurrentSumBytes, parallelFrom: parallelHashUnits, overlapFrom: overlapBytes, trustedOverlapFrom: trustedOverlapBytes}

// parallelHashUnits is the ciphertext (in bytes) from which a call whose
// scan is done hashes its reasoning items on two goroutines.
const parallelHashUnits = 256 << 10

// overlapBytes is the payload size from which the fingerprinting follows
// the scan on a second goroutine. The scan reads every byte of the
// ciphertexts before they are hashed; overlapped, both cores work from the
// first item on. Measured on the 2-core bench machine (best of 500 to
// 1,000 calls, paired with the previous build): a 1 MiB reasoning-heavy
// call went from about 0.87–0.92 ms to 0.61–0.66 ms; at 256 KiB no
// difference showed beyond the noise, and at 64 KiB the call does not
// overlap at all.
const overlapBytes = 512 << 10

// trustedOverlapBytes is overlapBytes for a trusted scan, which only finds
// where values end and so leaves less to overlap. Measured prevalidated
// (best of 150, overlapped vs after the scan): at 1 MiB a typical payload,
// most of it kept so that the final sum is the longest work, took
// 0.70–0.75 ms against 0.62–0.66 ms, the second core then shared by three
// goroutines; at 4 MiB overlapping won for every kind (reasoning-heavy
// 1.9–2.1 ms against 3.3 ms, typical 2.7–3.0 against 3.0–3.1).
const trustedOverlapBytes = 4 << 20

// scanned is one call's payload scanned, its encrypted items fingerprinted
// and decided, and the final sum under way (fin).
type scanned struct {
	d   *doc
	fin summing
	h   *hasher
}

// scanHashed scans payload and fingerprints its encrypted items, deciding
// each with omit, in input order and never concurrently. From
// w.overlapFrom bytes a second goroutine fingerprints each item as soon
// as the scan has passed it and the scanning goroutine joins it once the
// scan is done, so validating and hashing overlap on two cores; below,
// the scan comes first and the fingerprinting follows (on two goroutines
// from w.parallelFrom bytes of ciphertext). Either way a failed scan is
// the call's error, whatever the fingerprinting met meanwhile — malformed
// JSON is INVALID_PAYLOAD as if nothing had been hashed — and when
// scanHashed fails no goroutine of the call is left running. fp must be
// the call's only fingerprinter so far.
func scanHashed(fp *fingerprinter, payload []byte, opts Options, compaction bool, w ways, onFinalSum func(), omit func(Candidate) bool) (scanned, error) {
	fp.stop = new(atomic.Bool)
	ds := newDecisions()
	var prog *progress // what the scan publishes, when the hashing follows it
	var h *hasher
	var helper chan error // the second worker's result, when there is one
	startHelper := func() {
		helper = make(chan error, 1)
		sibling := fp.sibling()
		go func() { helper <- h.work(sibling) }()
	}
	overlapFrom := w.overlapFrom
	if opts.Prevalidated {
		overlapFrom = w.trustedOverlapFrom
	}
	if len(payload) >= overlapFrom {
		ds.init(MaxReasoningItems) // the scan has not counted them yet
		prog = newProgress(false)
		h = newHasher(payload, prog, ds, 0)
		h.decide(omit)
		startHelper()
	}
	d, fin, err := scanSumming(fp.ctx, payload, opts, compaction, w.sumFrom, onFinalSum, ds, prog)
	if err != nil {
		if helper != nil {
			fp.stop.Store(true) // within one chunk, not at the end of a long item
			prog.end(nil, err)
			<-helper
		}
		return scanned{}, err
	}
	if h == nil {
		ds.init(len(d.reasoning))
		prog = newProgress(false)
		h = newHasher(payload, prog, ds, len(d.reasoning))
		h.decide(omit)
	}
	prog.end(d, nil)
	if fin.g != nil {
		fin.g.scanned(d)
	}
	if helper == nil && len(d.reasoning) >= 2 && cipherBytes(d) >= w.parallelFrom {
		startHelper()
	}
	err = h.work(fp)
	if helper != nil {
		err = joined(err, <-helper)
	}
	if err != nil {
		fin.stop()
		return scanned{}, err
	}
	return scanned{d: d, fin: fin, h: h}, nil
}

// cipherBytes is the length of every candidate's ciphertext together.
func cipherBytes(d *doc) int {
	n := 0
	for _, k := range d.reasoning {
		n += d.items[k].cipher.end - d.items[k].cipher.start
	}
	return n
}

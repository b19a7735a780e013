package filter

import (
	"context"

	"github.com/continuity-dev/continuity/jsonscan"
)

// summing is a scan with, for a large payload, the final sum (the SHA-256
// of the final bytes) running beside it on another core: it hashes what the
// scan has already found to be final while the scan goes on, and the rest
// as the omit decisions are made (ds), so hashing the ciphertexts and
// hashing the result overlap. g is nil below the size where that pays.
type summing struct {
	ds *decisions
	g  *finalSum
}

// scanSumming scans payload, starting the final sum of the decisions ds
// from sumFrom bytes (onChunk is its test hook) and publishing the
// scan's candidates to prog (nil: nothing follows the scan). On an error
// the final sum has already stopped.
func scanSumming(ctx context.Context, payload []byte, opts Options, compaction bool, sumFrom int, onChunk func(), ds *decisions, prog *progress) (*doc, summing, error) {
	fin := summing{ds: ds}
	sc := scanner{Scanner: jsonscan.Scanner{B: payload, Trusted: opts.Prevalidated}, compaction: compaction, prog: prog}
	if len(payload) >= sumFrom {
		sc.front = newFrontier()
		fin.g = startFinalSum(ctx, payload, opts.StripPairedIDs, fin.ds, sc.front, onChunk)
	}
	d, err := sc.scan()
	switch {
	case err != nil:
		err = named(err)
	case d.problem != nil:
		err = d.problem
	}
	if err != nil {
		fin.stop()
		return nil, fin, err
	}
	return d, fin, nil
}

// stop ends the final sum, if any, when the call fails: no goroutine reads
// the payload after it returns.
func (fin summing) stop() {
	if fin.g != nil {
		fin.ds.stop()
		fin.g.wait()
	}
}

package filter

import (
	"context"

	"github.com/continuity-dev/continuity/jsonscan"
)

// digesting is a scan with, for a large payload, the digest of the final
// bytes running beside it on another core: the digest hashes what the
// scan has already found to be final while the scan goes on, and the rest
// as the omit decisions are made (ds), so hashing the ciphertexts and
// hashing the result overlap. g is nil below the size where that pays.
type digesting struct {
	ds *decisions
	g  *digest
}

// scanDigesting scans payload, starting the digest of the decisions ds
// from digestFrom bytes (onChunk is its test hook) and publishing the
// scan's candidates to prog (nil: nothing follows the scan). On an error
// the digest has already stopped.
func scanDigesting(ctx context.Context, payload []byte, opts Options, compaction bool, digestFrom int, onChunk func(), ds *decisions, prog *progress) (*doc, digesting, error) {
	dg := digesting{ds: ds}
	sc := scanner{Scanner: jsonscan.Scanner{B: payload, Trusted: opts.Prevalidated}, compaction: compaction, prog: prog}
	if len(payload) >= digestFrom {
		sc.front = newFrontier()
		dg.g = startDigest(ctx, payload, opts.StripPairedIDs, dg.ds, sc.front, onChunk)
	}
	d, err := sc.scan()
	switch {
	case err != nil:
		err = named(err)
	case d.problem != nil:
		err = d.problem
	}
	if err != nil {
		dg.stop()
		return nil, dg, err
	}
	return d, dg, nil
}

// stop ends the digest, if any, when the call fails: no goroutine reads
// the payload after it returns.
func (dg digesting) stop() {
	if dg.g != nil {
		dg.ds.stop()
		dg.g.wait()
	}
}

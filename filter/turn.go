package filter

import (
	"context"
	"crypto/sha256"
	"sync/atomic"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/jsonscan"
)

// Options configure a Turn.
type Options struct {
	// StripPairedIDs removes the id member of the item that directly follows
	// an omitted reasoning item, because suppliers reject fc_/msg_ ids whose
	// paired reasoning is gone. call_id is never touched.
	StripPairedIDs bool
	// Prevalidated says the caller already checked that the bytes are valid
	// JSON, so the scanner only finds value ends instead of validating.
	Prevalidated bool
}

// Omitted counts what one call removed.
type Omitted struct {
	Items       int // reasoning items omitted
	CodeUnits   int // UTF-16 code units of the omitted items' encrypted_content
	StrippedIDs int // id members removed from items that followed omitted reasoning
}

// Result is the outcome of one Apply.
type Result struct {
	// Output is the bytes to send; nil when nothing was omitted or stripped
	// (outcome "unchanged"), in which case the input is sent as it is.
	Output  []byte
	Omitted Omitted
	// SHA256 is the digest of the final bytes: Output, or the input when
	// Output is nil.
	SHA256 [32]byte
}

// Final returns the bytes to send for a call whose input was in: Output,
// or in itself when the outcome is unchanged.
func (r Result) Final(in []byte) []byte {
	if r.Output == nil {
		return in
	}
	return r.Output
}

// baseline is the fingerprint set taken from a turn's first payload.
type baseline map[[32]byte]struct{}

// Turn filters the payloads of one admitted turn (or one compaction
// segment). It is safe for concurrent use, but calls do not queue: a call
// made while another is running fails with PROCESSING_OVERLAP.
type Turn struct {
	opts     Options
	busy     atomic.Bool
	baseline atomic.Pointer[baseline]
	onChunk  func() // test hook, see fingerprinter
}

// NewTurn returns a turn with no baseline yet.
func NewTurn(opts Options) *Turn {
	return &Turn{opts: opts}
}

// HasBaseline reports whether a call of this turn has succeeded, which is
// what a step after the first needs to be filtered at all.
func (t *Turn) HasBaseline() bool {
	return t.baseline.Load() != nil
}

// Apply filters one payload of the turn. revoked (may be nil) is polled
// before the work starts, at least once per 64 Ki-unit hashing chunk and
// before the result is committed; a non-nil return aborts the call with
// that error, and so does cancellation of ctx (with ctx.Err()). The first
// successful Apply sets the baseline; a failed, cancelled, overlapping or
// revoked call leaves none behind. payload is only read, never retained.
func (t *Turn) Apply(ctx context.Context, payload []byte, revoked func() error) (Result, error) {
	if !t.busy.CompareAndSwap(false, true) {
		return Result{}, diag.New(diag.ProcessingOverlap, "another payload of this turn is being filtered")
	}
	defer t.busy.Store(false)

	fp := fingerprinter{ctx: ctx, revoked: revoked, onChunk: t.onChunk}
	if err := fp.poll(); err != nil {
		return Result{}, err
	}
	sc := scanner{Scanner: jsonscan.Scanner{B: payload, Trusted: t.opts.Prevalidated}}
	d, err := sc.scan()
	if err != nil {
		return Result{}, named(err)
	}
	if d.problem != nil {
		return Result{}, d.problem
	}

	prints := make([][32]byte, len(d.reasoning))
	units := make([]int, len(d.reasoning))
	for k, idx := range d.reasoning {
		it := &d.items[idx]
		if prints[k], units[k], err = fp.fingerprint(payload[it.cipher.start:it.cipher.end], it.cipherPlain); err != nil {
			return Result{}, err
		}
	}
	base := t.baseline.Load()
	first := base == nil
	if first {
		fresh := make(baseline, len(prints))
		for _, p := range prints {
			fresh[p] = struct{}{}
		}
		base = &fresh
	}

	res := Result{}
	omit := make([]bool, len(d.items))
	for k, idx := range d.reasoning {
		if _, ok := (*base)[prints[k]]; ok {
			omit[idx] = true
			res.Omitted.Items++
			res.Omitted.CodeUnits += units[k]
		}
	}
	var cuts []span
	if res.Omitted.Items > 0 {
		cuts = appendCuts(nil, len(d.items),
			func(k int) span { return d.items[k].span },
			func(k int) bool { return omit[k] })
		if t.opts.StripPairedIDs {
			cuts = d.pairedIDCuts(cuts, omit, &res.Omitted)
		}
	}
	final := payload
	if len(cuts) > 0 {
		res.Output = cutOut(payload, cuts)
		final = res.Output
	}
	res.SHA256 = sha256.Sum256(final)

	if err := fp.poll(); err != nil {
		return Result{}, err
	}
	if first {
		t.baseline.Store(base)
	}
	return res, nil
}

// pairedIDCuts appends the cuts removing the id members of every kept item
// that directly follows an omitted reasoning item. Reasoning, compaction and
// item_reference items are exempt: their id belongs to their own content.
func (d *doc) pairedIDCuts(cuts []span, omit []bool, o *Omitted) []span {
	for k := 1; k < len(d.items); k++ {
		it := &d.items[k]
		if !omit[k-1] || omit[k] || it.ids == 0 || it.kind != kindOrdinary {
			continue
		}
		cuts = append(cuts, d.idRanges[it.idRemove.start:it.idRemove.end]...)
		o.StrippedIDs += int(it.ids)
	}
	return cuts
}

package filter

import (
	"bytes"
	"context"
	"crypto/sha256"
	"sync/atomic"

	"github.com/continuity-dev/continuity/diag"
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
	// NoCopy leaves Output nil and returns the final bytes as Pieces:
	// slices of the payload, in order. A caller that writes them out once
	// (the plugin splices them into its reply) then never copies 1 MiB into
	// fresh memory on the way; it must copy them itself before the
	// payload's memory is reused.
	NoCopy bool
}

// Omitted counts what one call removed.
type Omitted struct {
	Items       int // reasoning items omitted
	Compactions int // compaction items omitted (Select only)
	CodeUnits   int // UTF-16 code units of the omitted items' encrypted_content
	StrippedIDs int // id members removed from items that followed omitted reasoning
}

// Result is the outcome of one Apply.
type Result struct {
	// Output is the bytes to send; nil when nothing was omitted or stripped
	// (outcome "unchanged"), in which case the input is sent as it is.
	Output []byte
	// Pieces are the bytes to send as slices of the payload, in order, when
	// the turn's Options say NoCopy (Output is nil then); nil when nothing
	// was omitted.
	Pieces  [][]byte
	Omitted Omitted
	// SHA256 is the final sum, the SHA-256 of the final bytes: Output, or the input when
	// Output is nil.
	SHA256 [32]byte
}

// Changed reports whether anything was omitted, so that the bytes to send
// are Output (or Pieces) rather than the input.
func (r Result) Changed() bool { return r.Output != nil || r.Pieces != nil }

// Final returns the bytes to send for a call whose input was in: Output
// (or Pieces joined), or in itself when the outcome is unchanged.
func (r Result) Final(in []byte) []byte {
	switch {
	case r.Output != nil:
		return r.Output
	case r.Pieces != nil:
		return bytes.Join(r.Pieces, nil)
	}
	return in
}

// baseline is the fingerprint set taken from a turn's first payload.
type baseline map[[32]byte]struct{}

// Turn filters the payloads of one admitted turn (or one compaction
// segment). It is safe for concurrent use, but calls do not queue: a call
// made while another is running fails with PROCESSING_OVERLAP.
type Turn struct {
	opts       Options
	busy       atomic.Bool
	baseline   atomic.Pointer[baseline]
	onChunk    func() // test hook, see fingerprinter
	onFinalSum func() // test hook, see finalSum
	ways       ways   // defaultWays; tests lower them to cover every way
}

// NewTurn returns a turn with no baseline yet.
func NewTurn(opts Options) *Turn {
	return &Turn{opts: opts, ways: defaultWays}
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
// revoked call leaves none behind. payload is only read, never retained
// (with NoCopy, the result's Pieces are slices of it), and no goroutine
// reads it once Apply has returned.
func (t *Turn) Apply(ctx context.Context, payload []byte, revoked func() error) (Result, error) {
	if !t.busy.CompareAndSwap(false, true) {
		return Result{}, diag.New(diag.ProcessingOverlap, "another payload of this turn is being filtered")
	}
	defer t.busy.Store(false)
	return t.apply(ctx, payload, revoked)
}

// apply is Apply for the call that holds the turn.
func (t *Turn) apply(ctx context.Context, payload []byte, revoked func() error) (Result, error) {
	fp := fingerprinter{ctx: ctx, revoked: revoked, onChunk: t.onChunk, spent: new(atomic.Int64)}
	if err := fp.poll(); err != nil {
		return Result{}, err
	}
	base := t.baseline.Load()
	first := base == nil
	sc, err := scanHashed(&fp, payload, t.opts, false, t.ways, t.onFinalSum, func(c Candidate) bool {
		if first {
			return true // a turn's first call omits all its reasoning: it is history
		}
		_, omit := (*base)[c.Fingerprint]
		return omit
	})
	if err != nil {
		return Result{}, err
	}
	res, err := t.finish(Result{Omitted: sc.h.omitted}, payload, sc.d, sc.fin)
	if err != nil {
		return Result{}, err
	}

	if err := fp.poll(); err != nil {
		return Result{}, err
	}
	if first {
		fresh := sc.h.fingerprints()
		t.baseline.Store(&fresh)
	}
	return res, nil
}

// ApplyFollowed is Apply for a payload that f has followed while it
// arrived (FollowPayload): the same result, the same errors, the same
// baseline, with the work f has done already taken instead of done again.
// revoked is polled before, during (once per hashing chunk of what is left
// of f's work) and before the result is committed, and ctx bounds the wait
// for f. A payload that is not exactly f's object, or that f could not
// filter, is filtered by Apply's own path, so its error is Apply's. f is
// not closed: its owner closes it once the result is no longer needed (the
// result's Pieces are slices of the payload, not of anything f holds).
func (t *Turn) ApplyFollowed(ctx context.Context, f *Followed, payload []byte, revoked func() error) (Result, error) {
	if !t.busy.CompareAndSwap(false, true) {
		return Result{}, diag.New(diag.ProcessingOverlap, "another payload of this turn is being filtered")
	}
	defer t.busy.Store(false)
	if f == nil {
		return t.apply(ctx, payload, revoked)
	}
	fp := fingerprinter{ctx: ctx, revoked: revoked}
	if err := fp.poll(); err != nil {
		return Result{}, err
	}
	poll := fp.poll
	f.poll.Store(&poll)
	select {
	case <-f.done:
	case <-ctx.Done():
		f.Close() // the hashing stops within a chunk
		return Result{}, ctx.Err()
	}
	if err := fp.poll(); err != nil {
		return Result{}, err
	}
	if f.err != nil || !f.covers(payload) {
		return t.apply(ctx, payload, revoked)
	}
	base := t.baseline.Load()
	first := base == nil
	var res Result
	if first && t.opts.StripPairedIDs { // followedStrip: the following stripped as this turn does
		res = Result{Omitted: f.res.Omitted, SHA256: f.res.SHA256}
		if res.Omitted.Items+res.Omitted.Compactions > 0 {
			if t.opts.NoCopy {
				res.Pieces = f.pieces
			} else {
				res.Output = bytes.Join(f.pieces, nil)
			}
		} else {
			res.Omitted.StrippedIDs = 0 // nothing cut: nothing stripped, as finish counts
		}
	} else {
		var err error
		if res, err = t.redecide(f, payload, func(c Candidate) bool {
			if first {
				return true
			}
			_, omit := (*base)[c.Fingerprint]
			return omit
		}); err != nil {
			return Result{}, err
		}
	}
	if err := fp.poll(); err != nil {
		return Result{}, err
	}
	if first {
		fresh := f.st.h.fingerprints()
		t.baseline.Store(&fresh)
	}
	f.taken.Store(true)
	return res, nil
}

// concurrentSumBytes is the payload size from which the final sum runs on
// its own goroutine; below it, starting one costs more than it saves.
const concurrentSumBytes = 128 << 10

// finish builds the output (when anything was omitted) and the final sum:
// on this goroutine in one walk of the final bytes, or by taking both the
// sum and the walk's ranges from the concurrent final sum, which has
// walked them already while the decisions arrived.
func (t *Turn) finish(res Result, payload []byte, d *doc, fin summing) (Result, error) {
	keep := res.Omitted.Items+res.Omitted.Compactions > 0 // the final bytes differ from the payload
	var spans []span
	stripped := 0
	if g := fin.g; g != nil {
		sum, err := g.wait()
		if err != nil {
			return Result{}, err
		}
		res.SHA256, spans, stripped = sum, g.spans, g.stripped
	} else {
		h := sha256.New()
		stripped, _ = walkFinal(payload, d, t.opts.StripPairedIDs, fin.ds.await, func(c span) error {
			if keep {
				spans = append(spans, c)
			}
			h.Write(payload[c.start:c.end])
			return nil
		})
		h.Sum(res.SHA256[:0])
	}
	if keep {
		res.Omitted.StrippedIDs = stripped
		if t.opts.NoCopy {
			res.Pieces = make([][]byte, len(spans))
			for k, c := range spans {
				res.Pieces[k] = payload[c.start:c.end]
			}
		} else {
			n := 0
			for _, c := range spans {
				n += c.end - c.start
			}
			res.Output = make([]byte, 0, n)
			for _, c := range spans {
				res.Output = append(res.Output, payload[c.start:c.end]...)
			}
		}
	}
	return res, nil
}

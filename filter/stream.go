package filter

import (
	"context"
	"sync/atomic"

	"github.com/continuity-dev/continuity/jsonscan"
)

// Stream is Select for a caller that sends the final bytes on as they
// become final — a proxy streaming the request to its upstream — and
// overlaps the filter's work with everything around it: the scan can
// follow the payload while it is read (Follow; Start for a payload already
// whole), the fingerprinting follows the scan before the caller has said
// how to decide (so a caller that must first look at the payload's Shape
// loses no time), and Send emits the final bytes while the scan and the
// fingerprinting go on.
//
// A Stream owns a scanning and a hashing goroutine from the start, and a
// writing one during Send; exactly one of Send or Close ends it, and either
// returns only once none of them runs. Its methods are for one goroutine,
// except Arrived, which the reader may call from another.
type Stream struct {
	payload []byte
	opts    Options
	fp      fingerprinter
	arrive  *arrival // nil: the payload was whole from the start
	prog    *progress
	h       *hasher
	scanned chan struct{} // closed when the scan has ended: shape, scanErr set
	shape   Shape
	scanErr error
	hashing chan error // each hashing worker's result, two in all
	ended   bool       // Send or Close has run
	// compaction makes compaction items candidates, as Select does; a
	// Turn's payload followed (Followed) has none.
	compaction bool
	// end is the payload's length: len(payload), or for an open arrival
	// (Followed) where its object closed, once the scan has found it.
	end atomic.Int64
	// long, for a prevalidated payload, are the strings its validator
	// recorded: the scan steps over each, knowing whether it is plain.
	long jsonscan.Spans
}

// Follow starts filtering buf, which the caller is reading the payload
// into, from its first byte: the caller reports with Arrived how much of
// buf has arrived (all of it, in the end), and buf[:n] must not change
// once reported. ctx bounds the hashing as Select's ctx does; payload is
// only read, never retained once the Stream has ended.
func Follow(ctx context.Context, buf []byte, opts Options) *Stream {
	return start(ctx, buf, opts, newArrival(len(buf)), true, nil, jsonscan.Spans{})
}

// Start starts filtering a payload that is already whole.
func Start(ctx context.Context, payload []byte, opts Options) *Stream {
	return start(ctx, payload, opts, nil, true, nil, jsonscan.Spans{})
}

// start starts a Stream; revoked (may be nil) is polled with ctx. long are
// the validated strings of the document payload is part of, for a
// prevalidated scan (see FollowPayload).
func start(ctx context.Context, payload []byte, opts Options, arrive *arrival, compaction bool, revoked func() error, long jsonscan.Spans) *Stream {
	s := &Stream{payload: payload, opts: opts, arrive: arrive, prog: newProgress(true), compaction: compaction, long: long,
		fp:      fingerprinter{ctx: ctx, revoked: revoked, spent: new(atomic.Int64), stop: new(atomic.Bool)},
		scanned: make(chan struct{}), hashing: make(chan error, 2)}
	s.end.Store(int64(len(payload)))
	ds := newDecisions()
	ds.init(MaxReasoningItems) // the scan has not counted them yet
	s.h = newHasher(payload, s.prog, ds, 0)
	sibling := s.fp.sibling()
	go func() { s.hashing <- s.h.work(sibling) }()
	go s.scan()
	return s
}

// scan runs on the Stream's scanning goroutine, which then helps hash.
func (s *Stream) scan() {
	sc := scanner{Scanner: jsonscan.Scanner{B: s.payload, Trusted: s.opts.Prevalidated, Long: s.long}, compaction: s.compaction, prog: s.prog}
	var d *doc
	var err error
	if s.arrive != nil {
		sc.arrive, sc.whole = s.arrive, s.payload
		d, err = sc.followScan()
	} else {
		d, err = sc.scan()
	}
	switch {
	case err != nil:
		d, err = nil, named(err)
	case d.problem != nil:
		err = d.problem
	}
	if err == nil && s.arrive != nil && s.arrive.open {
		s.end.Store(int64(s.arrive.length())) // before the walk can learn the scan ended
	}
	s.prog.end(d, err)
	if err == nil {
		s.shape = Shape{payload: s.payload[:s.end.Load()], d: d}
	}
	s.scanErr = err
	close(s.scanned)
	if err != nil {
		s.hashing <- nil
		return
	}
	s.hashing <- s.h.work(&s.fp) // the scan is done: help hash what is left
}

// Arrived reports that the payload's first n bytes are in its buffer.
func (s *Stream) Arrived(n int) { s.arrive.advance(n) }

// Shape waits for the scan and returns what the payload shows of itself,
// or the error Select would fail the payload with. It does not wait for
// the fingerprints.
func (s *Stream) Shape() (Shape, error) {
	<-s.scanned
	return s.shape, s.scanErr
}

// Send decides on each encrypted item with omit, as Select does — once per
// item, in input order and never concurrently — and calls emit, in order
// and from one other goroutine, with the final bytes up to the first item
// not yet scanned or decided, while the scan and the fingerprinting go on.
// The bytes after the last input item are emitted only once the scan has
// validated the whole payload, so emit never completes a body that the
// call then fails. It returns once no goroutine of the Stream runs.
//
// The pieces emitted (slices of the payload) joined are exactly what
// Select would return. Consecutive pieces that are adjacent in the payload
// are joined into one, emitted where the final bytes skip a cut or when the
// walk has to wait, so a caller writing them to a connection makes few
// large writes. An error from emit ends the writing (the
// fingerprinting still finishes and the counts are returned with that
// error); a failed or cancelled call stops emitting and returns its error —
// a payload that is not valid JSON, or holds an unsupported reasoning
// item, fails as Select fails even though emit may already have been given
// a prefix — and the caller must treat what it emitted as incomplete. omit
// may have been called on items before the error. Result.SHA256 is not
// computed (zero) and Output and Pieces are nil.
func (s *Stream) Send(omit func(Candidate) bool, emit func([]byte) error) (Result, error) {
	if err := s.fp.poll(); err != nil {
		s.Close()
		return Result{}, err
	}
	s.ended = true
	type written struct {
		stripped int
		err      error
	}
	walked := make(chan written, 1)
	go func() {
		out := &run{payload: s.payload, emit: emit}
		add := out.add
		if s.arrive != nil && s.arrive.open {
			// The walk ends its last span at len(payload): an open payload
			// ends where its object closed, which the scan has stored by
			// the time the walk reaches the bytes after the last item.
			add = func(c span) error {
				c.end = min(c.end, int(s.end.Load()))
				return out.add(c)
			}
		}
		n, err := walkFinal(s.payload, out.items(s.prog), s.opts.StripPairedIDs, out.decisions(s.h.ds), add)
		if err == nil {
			err = out.flush()
		}
		walked <- written{n, err}
	}()
	s.h.decide(omit)
	herr := joined(<-s.hashing, <-s.hashing)
	err := s.scanErr // the scanning goroutine set it before its hashing ended
	if err == nil && herr == nil {
		herr = s.fp.poll()
	}
	if err != nil || herr != nil {
		s.h.ds.stop()
	}
	w := <-walked
	switch {
	case err != nil:
		return Result{}, err
	case herr != nil:
		return Result{}, herr
	}
	res := Result{Omitted: s.h.omitted}
	res.Omitted.StrippedIDs = w.stripped
	return res, w.err
}

// Close ends a Stream that will not be sent: the scan stops waiting for
// bytes, the hashing stops within a chunk, and Close returns once both
// have. After Send it does nothing.
func (s *Stream) Close() {
	if s.ended {
		return
	}
	s.ended = true
	if s.arrive != nil {
		s.arrive.stop()
	}
	s.fp.stop.Store(true)
	<-s.hashing
	<-s.hashing
}

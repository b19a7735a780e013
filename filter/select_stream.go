package filter

import "context"

// SelectStream is Select for a caller that sends the final bytes on as they
// become final — a proxy streaming the request to its upstream — instead
// of holding them until the call returns. Scanning, fingerprinting and
// emitting overlap: the scan publishes each input item it has validated,
// the candidates are fingerprinted (and omit decides on them, in order,
// never concurrently) as the scan finds them, and emit is called, in order
// and from one other goroutine, with the final bytes up to the first item
// not yet scanned or decided. The bytes after the last input item are
// emitted only once the scan has validated the whole payload, so emit
// never completes a body that the call then fails.
//
// The pieces emitted (slices of payload) joined are exactly what Select
// would return. Consecutive pieces that are adjacent in payload are joined
// into one, and one is held back until it reaches emitRun bytes or the
// walk has to wait, so a caller writing them to a connection makes few
// large writes. An error from emit ends the writing (the fingerprinting
// still finishes and the counts are returned with that error); a failed or
// cancelled call stops emitting and returns its error — a payload that is
// not valid JSON, or holds an unsupported reasoning item, fails as Select
// fails even though emit may already have been given a prefix — and the
// caller must treat what it emitted as incomplete. omit may have been
// called on items before the error. Result.SHA256 is not computed (zero)
// and Output and Pieces are nil; no goroutine is left running when
// SelectStream returns.
func SelectStream(ctx context.Context, payload []byte, opts Options, revoked func() error,
	omit func(Candidate) bool, emit func([]byte) error) (Result, error) {
	if err := (&fingerprinter{ctx: ctx, revoked: revoked}).poll(); err != nil {
		return Result{}, err
	}
	return startStream(ctx, payload, opts, revoked, nil).Send(omit, emit)
}

// emitRun is how many final bytes SelectStream gathers into one piece
// before emitting it without waiting for more.
const emitRun = 256 << 10

// run gathers the pieces walkFinal yields into runs of adjacent payload
// bytes and emits a run when it is long enough or the walk is about to
// wait for the scan or a decision.
type run struct {
	payload    []byte
	emit       func([]byte) error
	start, end int // the run not yet emitted: payload[start:end]
}

// add extends the run by the bytes c or, when they do not follow it, emits
// the run and starts a new one.
func (o *run) add(c span) error {
	if c.start == c.end {
		return nil
	}
	if c.start != o.end || o.start == o.end {
		if err := o.flush(); err != nil {
			return err
		}
		o.start = c.start
	}
	o.end = c.end
	if o.end-o.start >= emitRun {
		return o.flush()
	}
	return nil
}

// flush emits the run, if any.
func (o *run) flush() error {
	if o.start == o.end {
		return nil
	}
	b := o.payload[o.start:o.end]
	o.start, o.end = 0, 0
	return o.emit(b)
}

// items is prog for walkFinal, emitting the run before waiting for an
// item the scan has not published yet.
func (o *run) items(prog *progress) items { return waitingItems{prog, o} }

type waitingItems struct {
	prog *progress
	out  *run
}

func (w waitingItems) item(k int) (item, []span, bool, error) {
	if !w.prog.has(k) {
		if err := w.out.flush(); err != nil {
			return item{}, nil, false, err
		}
	}
	return w.prog.item(k)
}

// decisions is ds.await, emitting the run before waiting for a decision
// not made yet.
func (o *run) decisions(ds *decisions) func(int) (bool, error) {
	return func(r int) (bool, error) {
		if ds.decided.Load() <= int64(r) {
			if err := o.flush(); err != nil {
				return false, err
			}
		}
		return ds.await(r)
	}
}

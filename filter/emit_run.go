package filter

// run gathers the pieces walkFinal yields into runs of adjacent payload
// bytes and emits a run where the final bytes skip a cut, and before the
// walk waits for the scan or a decision, so the bytes ready go on at once
// and a payload decided by the time it is sent goes in a few large writes.
// (Capping a run at 256 KiB measured slower at 16 MiB: more writes for the
// same bytes.)
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

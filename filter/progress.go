package filter

import "sync"

// progress is a document while it is being scanned, published item by item
// so that a Stream's fingerprinting and its walk of the final bytes
// follow the scan instead of waiting for it: the bytes of an input item
// that the scan has validated, and every decision before it, are all the
// walk needs to send that item on. The scan's verdict on the rest still
// decides the call: until the scan has ended well the walk never reaches
// the bytes after the last item, so an upstream reading the emitted bytes
// never sees a complete body that was not valid.
//
// Only the scanning goroutine publishes. The published slices are
// snapshots of the scan's own: the scan only appends to them, so the
// elements a snapshot covers never change, and a reader holding one never
// races the scan.
type progress struct {
	mu   sync.Mutex
	cond sync.Cond // broadcast on every publication and when the scan ends
	// items, reasoning and idRanges are the doc's slices as of the last
	// publication.
	items     []item
	reasoning []int
	idRanges  []span
	// problem is the doc's first UNSUPPORTED_REASONING: the call will fail,
	// so nothing after it is fingerprinted or walked.
	problem error
	ended   bool  // the scan has returned
	err     error // why the scan failed, nil when it ended well
	// every says a walk follows every item (a Stream); without it only
	// the fingerprinting follows, and only encrypted items are published
	// while the scan runs, which is all it needs.
	every bool
}

// newProgress returns a progress for a walk and the fingerprinting
// (every) or the fingerprinting alone.
func newProgress(every bool) *progress {
	p := &progress{every: every}
	p.cond.L = &p.mu
	return p
}

// publish makes d's items as scanned so far visible after the scan added
// one (encrypted says it is a candidate); nil-safe, so a scan without a
// reader pays one comparison per item.
func (p *progress) publish(d *doc, encrypted bool) {
	if p == nil || !p.every && !encrypted {
		return
	}
	p.mu.Lock()
	p.items, p.reasoning, p.idRanges, p.problem = d.items, d.reasoning, d.idRanges, d.problem
	p.mu.Unlock()
	p.cond.Broadcast()
}

// end publishes the scan's verdict: err is its error (the doc's problem
// included), nil when the whole payload is valid and d is complete.
func (p *progress) end(d *doc, err error) {
	p.mu.Lock()
	if d != nil {
		p.items, p.reasoning, p.idRanges, p.problem = d.items, d.reasoning, d.idRanges, d.problem
	}
	p.ended, p.err = true, err
	p.mu.Unlock()
	p.cond.Broadcast()
}

// has reports, without waiting, whether item k is published.
func (p *progress) has(k int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return k < len(p.items)
}

// item returns input item k and the id cuts it refers to once the scan has
// published it; ok is false when the scan ended well with fewer items.
// errStopped says the call is failing: the scan found an error or an
// unsupported reasoning item, so nothing more may be sent.
func (p *progress) item(k int) (it item, cuts []span, ok bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		switch {
		case p.problem != nil || p.ended && p.err != nil:
			return item{}, nil, false, errStopped
		case k < len(p.items):
			return p.items[k], p.idRanges, true, nil
		case p.ended:
			return item{}, nil, false, nil
		}
		p.cond.Wait()
	}
}

// candidate returns the r-th encrypted item and its position in input once
// the scan has published it, like item.
func (p *progress) candidate(r int) (it item, index int, ok bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		switch {
		case p.problem != nil || p.ended && p.err != nil:
			return item{}, 0, false, errStopped
		case r < len(p.reasoning):
			k := p.reasoning[r]
			return p.items[k], k, true, nil
		case p.ended:
			return item{}, 0, false, nil
		}
		p.cond.Wait()
	}
}

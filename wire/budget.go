package wire

import "sync"

// DefaultMaxInFlight bounds the bytes the plugin holds for a host that
// does not read its replies: params of frames read but not yet answered (a
// filtered payload's reply is slices of its params) and encoded replies
// waiting for the pipe. When the host stops reading the plugin's stdout,
// replies queue up; once this much is held with a reply waiting, the
// plugin stops reading stdin until the host drains some, instead of
// reading (and holding) every frame the host keeps sending.
const DefaultMaxInFlight = 64 << 20

// budget counts the bytes in flight and holds the read loop while they
// are too many. Two limits apply. While a reply waits for the pipe (the
// host is not keeping up with reading), reading stops at limit. While
// replies flow, reading goes on up to hard (four times limit, and room for
// two frames at the frame limit): a large payload being filtered does not
// keep its own $/cancelRequest unread, but a host that sends faster than
// the plugin can work is still bounded. One frame is always admitted
// below a limit, so a frame at the frame limit gets through. And while one
// of our own calls to the host waits for its answer, reading goes on
// whatever is held: that answer can only come on stdin, and the requests
// holding the bytes may be the ones waiting for it.
type budget struct {
	mu      sync.Mutex
	cond    sync.Cond
	held    int64
	limit   int64
	hard    int64
	writing int // lines waiting for or being written to the pipe
	due     int // calls of ours sent and not yet answered
	peak    int64
}

func newBudget(limit, maxFrame int64) *budget {
	b := &budget{limit: limit, hard: max(4*limit, 2*maxFrame)}
	b.cond.L = &b.mu
	return b
}

// write counts a line of n encoded bytes waiting for the pipe (d = 1) or
// written (d = -1).
func (b *budget) write(d int, n int64) {
	b.mu.Lock()
	b.writing += d
	b.held += int64(d) * n
	b.peak = max(b.peak, b.held)
	b.mu.Unlock()
	if d < 0 {
		b.cond.Broadcast()
	}
}

// take counts n more bytes in flight.
func (b *budget) take(n int64) {
	b.mu.Lock()
	b.held += n
	b.peak = max(b.peak, b.held)
	b.mu.Unlock()
}

// give stops counting n bytes and wakes the read loop.
func (b *budget) give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.held -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// awaiting counts a call of ours as sent (d = 1) or answered or given up
// (d = -1).
func (b *budget) awaiting(d int) {
	b.mu.Lock()
	b.due += d
	b.mu.Unlock()
	b.cond.Broadcast()
}

// waitRoom returns once another frame may be read. paused is called,
// with the bytes held, if it has to wait first.
func (b *budget) waitRoom(paused func(held int64)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for waited := false; b.due == 0 && (b.held >= b.hard || b.held >= b.limit && b.writing > 0); waited = true {
		if !waited {
			held := b.held
			b.mu.Unlock()
			paused(held)
			b.mu.Lock()
			continue
		}
		b.cond.Wait()
	}
}

// stats returns the bytes in flight now and at most so far.
func (b *budget) stats() (held, peak int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held, b.peak
}

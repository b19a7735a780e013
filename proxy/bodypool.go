package proxy

import "sync"

// A body of declared length is read into one buffer of that length
// (readRequest), which the runtime clears before the read overwrites it,
// and which is garbage as soon as the request is answered: with many
// sessions at once that clearing, and the page faults of memory the
// collector has returned to the system, were a seventh of what the proxy
// spent per request beside the filter (16 sessions at once, 1 MiB bodies).
// bodyBuffers keeps the buffers of pipelined bodies for the next body of
// about the same size instead.
//
// Only a pipelined body's buffer goes back, because only there does the
// proxy know when nothing can read it any more: the handler is done with
// it, and the streamBody the transport reads has been closed with no Read
// or WriteTo under way (streamBody.quiet). A buffer forwarded whole goes
// to the transport behind httputil.ReverseProxy's own wrapper, which may
// still be read after the handler has returned; it is left to the
// collector, as before.

// bodyClass is the size step of the pooled buffers: a buffer is the body's
// length rounded up to it, so that bodies a few bytes apart share buffers.
// What the rounding adds is held but not charged to the body budget, at
// most bodyClass-1 bytes a request (the allocator rounds a large buffer up
// to its pages as well).
const bodyClass = 64 << 10

// pooledBodyMax is the largest body whose buffer is pooled. Larger bodies
// are rare, and a pooled buffer outlives its request until the collector
// has run twice.
const pooledBodyMax = 16 << 20

// bodyBuffers are the pooled buffers, one sync.Pool per bodyClass step
// from pipelineFrom to pooledBodyMax. sync.Pool lets the collector free
// what is idle, so the budget's collections (budget.collect) still free
// the bodies of finished requests.
type bodyBuffers struct {
	classes [(pooledBodyMax-pipelineFrom)/bodyClass + 1]sync.Pool
}

// class is the pool of buffers for n-byte bodies, nil when n is out of
// the pooled range.
func (b *bodyBuffers) class(n int) (*sync.Pool, int) {
	if n < pipelineFrom || n > pooledBodyMax {
		return nil, 0
	}
	steps := (n + bodyClass - 1) / bodyClass
	return &b.classes[steps-pipelineFrom/bodyClass], steps * bodyClass
}

// lease starts a request's lease on a body buffer; the handler must
// release it once nothing it calls can refer to the body.
func (b *bodyBuffers) lease() *bodyLease { return &bodyLease{from: b, holders: 1} }

// bodyLease is one request's body buffer and who holds it: the handler,
// and the pipelined upstream body once one was given the buffer (fence).
// The buffer goes back to the pool when the last holder lets go, and only
// if a pipelined body held it.
type bodyLease struct {
	from *bodyBuffers
	buf  []byte // the buffer, whole; nil until bytes

	mu      sync.Mutex
	holders int
	fenced  bool
}

// bytes returns a buffer of n bytes for the body, pooled when n is in the
// pooled range; its contents are those of an earlier body until the read
// overwrites them, so only what the read has filled may be looked at. A
// lease gives one buffer.
func (l *bodyLease) bytes(n int) []byte {
	pool, size := l.from.class(n)
	if pool == nil {
		return make([]byte, n)
	}
	if b, ok := pool.Get().(*[]byte); ok {
		l.buf = *b
	} else {
		l.buf = make([]byte, size)
	}
	return l.buf[:n:n]
}

// fence records that a pipelined upstream body holds the buffer and
// returns its release, to be called once the transport can no longer read
// the body (streamBody.quiet).
func (l *bodyLease) fence() (release func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holders++
	l.fenced = true
	return l.release
}

// release lets go of the buffer for one holder.
func (l *bodyLease) release() {
	l.mu.Lock()
	l.holders--
	back := l.holders == 0 && l.fenced && l.buf != nil
	l.mu.Unlock()
	if back {
		if pool, _ := l.from.class(len(l.buf)); pool != nil {
			buf := l.buf
			l.buf = nil
			pool.Put(&buf)
		}
	}
}

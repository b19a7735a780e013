package wire

import (
	"math/bits"
	"sync"
)

// Buffer classes are powers of two from 128 KiB to 128 MiB. A frame that
// outgrows the 64 KiB read buffer starts in one of these; a frame beyond
// 4 MiB goes into a large buffer sized from it (bufferPool.large). Pooled
// buffers live in sync.Pools, which the garbage collector empties: a huge
// buffer is not kept.
const (
	minClassShift = 17
	maxClassShift = 27
)

// bufferPool recycles the buffers large frames are gathered in. A host
// that sends a 1 MiB payload at every step would otherwise make the plugin
// allocate (and the runtime zero) a new buffer per frame and collect it a
// moment later; with the pool the steady state reads straight into a buffer
// that is already there. Buffers live in sync.Pools, so the garbage
// collector still frees them when frames stop coming: one 256 MiB frame does
// not pin 256 MiB for the life of the process.
type bufferPool struct {
	classes [maxClassShift - minClassShift + 1]sync.Pool
	// large holds the buffers of frames beyond bigBlock, each sized from
	// its frame plus an eighth (getLarge), not rounded up to a class: the
	// runtime zeroes a large allocation that reuses freed heap, so a 64 MiB
	// frame in its 128 MiB class made the whole class resident (twice the
	// frame, in some runs). A steady stream of large frames still reads
	// each straight into the buffer of the one before.
	large sync.Pool
}

// tryLarge returns a pooled large buffer of at least n bytes (len == cap),
// or false: it never allocates. A buffer too small for n is left to the
// garbage collector.
func (p *bufferPool) tryLarge(n int) ([]byte, bool) {
	if b, _ := p.large.Get().(*[]byte); b != nil {
		if cap(*b) >= n {
			return (*b)[:cap(*b)], true
		}
	}
	return nil, false
}

// getLarge returns a buffer of at least n bytes for a frame beyond
// bigBlock (len == cap): a pooled one, else a new one an eighth larger than
// n, so a slightly larger next frame still fits.
func (p *bufferPool) getLarge(n int) []byte {
	if b, ok := p.tryLarge(n); ok {
		return b
	}
	return make([]byte, n+n/8)
}

// get returns a buffer of n bytes (len == cap). Only class sizes (see
// classSize) come from the pool; any other size is allocated exactly and
// never pooled.
func (p *bufferPool) get(n int) []byte {
	c, ok := classOf(n)
	if !ok || n != 1<<(c+minClassShift) {
		return make([]byte, n)
	}
	if b, _ := p.classes[c].Get().(*[]byte); b != nil {
		return *b
	}
	return make([]byte, 1<<(c+minClassShift))
}

// tryGet returns a pooled buffer of class size n, or false when the pool
// has none: it never allocates.
func (p *bufferPool) tryGet(n int) ([]byte, bool) {
	c, ok := classOf(n)
	if !ok || n != 1<<(c+minClassShift) {
		return nil, false
	}
	if b, _ := p.classes[c].Get().(*[]byte); b != nil {
		return *b, true
	}
	return nil, false
}

// put gives b back for reuse. The caller must hold no other reference to
// b's memory. Buffers that get did not hand out are ignored.
func (p *bufferPool) put(b []byte) {
	if cap(b) > bigBlock {
		b = b[:cap(b)]
		p.large.Put(&b)
		return
	}
	c, ok := classOf(cap(b))
	if !ok || cap(b) != 1<<(c+minClassShift) {
		return
	}
	b = b[:cap(b)]
	p.classes[c].Put(&b)
}

// classSize rounds n up to a class size; sizes beyond the largest class
// stay as they are.
func classSize(n int) int {
	if c, ok := classOf(n); ok {
		return 1 << (c + minClassShift)
	}
	return n
}

// classOf returns the index of the smallest class holding n bytes.
func classOf(n int) (int, bool) {
	shift := max(bits.Len(uint(n-1)), minClassShift)
	if n <= 0 || shift > maxClassShift {
		return 0, false
	}
	return shift - minClassShift, true
}

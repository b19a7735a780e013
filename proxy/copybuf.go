package proxy

// copyBufSize is the buffer the proxy copies an upstream answer through
// to its client (httputil.ReverseProxy's own is 32 KiB). Each read
// returns what the upstream connection already holds, up to the buffer,
// and is written to the client and flushed before the next read waits
// (FlushInterval -1), so a larger buffer delays no event; it only lets a
// burst that has already arrived go out in fewer writes. That matters
// because net/http's server sends each write of more than its 4 KiB
// buffer as three syscalls (the chunk header and the first bytes through
// the buffer, the rest directly, the chunk's CRLF on the flush), however
// large the write: a 16 MiB answer read 32 KiB at a time costs some 1,500
// write syscalls, 256 KiB at a time some 200. A read returns that
// much when the answer comes faster than the client takes it: over
// HTTP/2 (what the transport speaks to most suppliers) a read takes every
// frame that has arrived, and over plain HTTP (a local model server)
// what the socket holds; over HTTP/1.1 with TLS it takes one 16 KiB
// record at most, and the buffer changes nothing.
const copyBufSize = 256 << 10

// idleCopyBufs bounds the buffers kept between answers: one for each of
// as many sessions answered at once as a user runs (4 MiB at most), so
// that an answer does not allocate and clear 256 KiB each time the
// collector has emptied a sync.Pool.
const idleCopyBufs = 16

// copyBuffers is the proxy's httputil.BufferPool: a bounded free list of
// copyBufSize buffers.
type copyBuffers struct{ idle chan *[copyBufSize]byte }

func newCopyBuffers() *copyBuffers {
	return &copyBuffers{idle: make(chan *[copyBufSize]byte, idleCopyBufs)}
}

// Get returns an idle buffer, or a new one when none is idle.
func (c *copyBuffers) Get() []byte {
	select {
	case b := <-c.idle:
		return b[:]
	default:
		return new([copyBufSize]byte)[:]
	}
}

// Put keeps b for the next answer unless idleCopyBufs are kept already.
func (c *copyBuffers) Put(b []byte) {
	if len(b) != copyBufSize {
		return
	}
	select {
	case c.idle <- (*[copyBufSize]byte)(b):
	default:
	}
}

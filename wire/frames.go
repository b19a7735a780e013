package wire

import (
	"bytes"
	"errors"
	"io"
	"runtime/debug"
)

// errFrameTooLarge reports a line longer than the frame limit. The reader has
// already skipped the rest of that line.
var errFrameTooLarge = errors.New("frame too large")

// readChunk is the size of the read buffer that small frames are cut from.
const readChunk = 64 << 10

// frame is one line of input, without its newline.
type frame struct {
	line []byte
	// pooled is the pool buffer holding line, when the line outgrew the read
	// buffer; recycle gives it back once nothing refers to line any more.
	pooled []byte
}

// size is the memory the frame holds: its pool buffer, or its bytes in
// the shared read buffer.
func (fr frame) size() int64 {
	if fr.pooled != nil {
		return int64(cap(fr.pooled))
	}
	return int64(len(fr.line))
}

// overLimit reports whether n bytes read before a line's newline (which
// has not been seen yet, or comes right after them) are more than a frame
// of max bytes can be: the \r of a \r\n ending does not count, so max+1
// bytes are a frame only when the last one is \r.
func overLimit(n, max int64, last byte) bool {
	return n > max+1 || n == max+1 && last != '\r'
}

// frameReader splits an NDJSON byte stream into frames. Small frames are
// sub-slices of a 64 KiB read buffer that is never written again once a
// frame has been cut from it, so they may be kept as long as the caller
// likes. A frame that outgrows the read buffer is read straight into one
// buffer from the pool (sized from the last large frame, so a steady stream
// of 1 MiB payloads reads each into a recycled buffer with no further copy)
// and is the caller's until it hands the buffer back with recycle.
type frameReader struct {
	src  io.Reader
	max  int64
	pool bufferPool
	buf  []byte // the read buffer; buf[off:end] is read but not yet returned
	off  int
	end  int
	hint int // length of the last large frame
	eof  bool
	rerr error
}

func newFrameReader(src io.Reader, max int64) *frameReader {
	return &frameReader{src: src, max: max}
}

// next returns the next frame without its trailing newline (and without a
// trailing \r). At the end of input it returns io.EOF; a final line without
// a newline is still a frame. A frame longer than max is skipped and
// reported as errFrameTooLarge; reading then continues with the next line.
func (f *frameReader) next() (frame, error) {
	for {
		if i := bytes.IndexByte(f.buf[f.off:f.end], '\n'); i >= 0 {
			line := trimCR(f.buf[f.off : f.off+i : f.off+i])
			f.off += i + 1
			if int64(len(line)) > f.max {
				return frame{}, errFrameTooLarge
			}
			return frame{line: line}, nil
		}
		pending := f.end - f.off
		if pending > 0 && overLimit(int64(pending), f.max, f.buf[f.end-1]) {
			return frame{}, f.skipLine(nil)
		}
		if f.eof {
			if pending == 0 {
				return frame{}, f.endErr()
			}
			line := trimCR(f.buf[f.off:f.end:f.end])
			f.off = f.end
			if int64(len(line)) > f.max {
				return frame{}, errFrameTooLarge
			}
			return frame{line: line}, nil
		}
		if f.end == len(f.buf) {
			if pending >= readChunk/2 {
				// The frame fills at least half a read buffer: read the rest
				// of it into a buffer of its own.
				return f.gather()
			}
			// Start a new read buffer; the old one keeps the frames cut from it.
			rest := f.buf[f.off:f.end]
			f.buf = make([]byte, readChunk)
			f.off, f.end = 0, copy(f.buf, rest)
		}
		n, err := f.src.Read(f.buf[f.end:])
		f.end += n
		if err != nil {
			f.eof, f.rerr = true, err
		}
	}
}

// gather reads the rest of the pending frame into pool buffers. The first
// is, when the pool has one, a recycled buffer sized from the last large
// frame, so in the steady state the whole frame lands in it and is handed
// out in place. A frame that outgrows it goes on in further blocks (each
// filled before the next is taken, at most 4 MiB more at a time, so an
// oversized line never holds more than the limit; see newBlock) and is
// joined once into a buffer of its size. Bytes read past the newline
// start a new read buffer.
func (f *frameReader) gather() (frame, error) {
	pending := f.buf[f.off:f.end]
	// A buffer the size of the last large frame takes the whole frame at
	// once: a recycled one, or a fresh one while that size is modest. After
	// a huge frame, a fresh buffer its size could be a huge allocation for
	// a small frame, so the frame starts small and grows through blocks.
	hinted := f.bufferSize(f.hint + f.hint/8 + 1)
	first, ok := f.pool.tryGet(hinted)
	if !ok && hinted <= bigBlock {
		first, ok = f.pool.get(hinted), true
	}
	if !ok || len(first) < len(pending) {
		if ok {
			f.pool.put(first)
		}
		first = f.pool.get(f.bufferSize(2 * len(pending)))
	}
	blocks := [][]byte{first[:copy(first, pending)]}
	f.buf, f.off, f.end = nil, 0, 0
	size := len(blocks[0])
	for {
		last := blocks[len(blocks)-1]
		if overLimit(int64(size), f.max, lastByte(blocks)) {
			return frame{}, f.skipLine(blocks)
		}
		if f.eof {
			return f.joined(blocks, size), nil
		}
		if len(last) == cap(last) {
			last = newBlock(f.bufferSize(min(size, bigBlock)))[:0]
			blocks = append(blocks, last)
		}
		m, err := f.src.Read(last[len(last):cap(last)])
		if err != nil {
			f.eof, f.rerr = true, err
		}
		if i := bytes.IndexByte(last[len(last):len(last)+m], '\n'); i >= 0 {
			end := len(last) + i
			f.keepRest(last[end+1 : len(last)+m])
			blocks[len(blocks)-1] = last[:end]
			if size += i; overLimit(int64(size), f.max, lastByte(blocks)) {
				f.drop(blocks)
				return frame{}, errFrameTooLarge
			}
			return f.joined(blocks, size), nil
		}
		blocks[len(blocks)-1] = last[:len(last)+m]
		size += m
	}
}

// bigBlock is the largest block a growing frame takes at once.
const bigBlock = 4 << 20

// joined returns the frame gathered in blocks (size bytes in all) and
// remembers its size for the next one. A frame in one block is handed out
// in place unless it fills less than a quarter of it; otherwise it is
// copied once into a buffer of its size, each block given back as soon as
// it is copied.
func (f *frameReader) joined(blocks [][]byte, size int) frame {
	f.hint = size
	if len(blocks) == 1 {
		b := blocks[0]
		if size >= cap(b)/4 {
			return frame{line: trimCR(b[:size:size]), pooled: b[:cap(b)]}
		}
		// A small frame in a big buffer: move it, so that a frame its
		// handler keeps does not hold the big buffer too.
	}
	out := f.pool.get(f.bufferSize(size))
	n := 0
	for i, b := range blocks {
		n += copy(out[n:], b)
		if i > 0 {
			freeBlock(b)
		}
	}
	f.pool.put(blocks[0])
	return frame{line: trimCR(out[:n:n]), pooled: out}
}

// drop forgets the buffers of a line over the limit: the blocks go back
// to the system, and the first buffer does not go back to the pool; when
// it was large (sized from an earlier large frame) the runtime is asked
// to return its memory now: a refused line must not stay resident.
func (f *frameReader) drop(blocks [][]byte) {
	if len(blocks) == 0 {
		return
	}
	for _, b := range blocks[1:] {
		freeBlock(b)
	}
	large := cap(blocks[0]) >= freeAfter
	clear(blocks)
	if large {
		debug.FreeOSMemory()
	}
}

// freeAfter is the size of a refused line's first buffer from which its
// memory is handed back to the system at once.
const freeAfter = 16 << 20

// lastByte is the last byte gathered so far (0 when none).
func lastByte(blocks [][]byte) byte {
	for i := len(blocks) - 1; i >= 0; i-- {
		if b := blocks[i]; len(b) > 0 {
			return b[len(b)-1]
		}
	}
	return 0
}

// bufferSize rounds a wanted buffer size up to a pool class, but never
// beyond two bytes past the frame limit: that is enough to tell a frame at
// the limit ending in \r\n from one beyond it.
func (f *frameReader) bufferSize(want int) int {
	return int(min(int64(classSize(want)), f.max+2))
}

// keepRest copies bytes read past a large frame's newline into a new read
// buffer, so the frame's pool buffer can be recycled on its own.
func (f *frameReader) keepRest(rest []byte) {
	f.buf = make([]byte, max(readChunk, len(rest)))
	f.off, f.end = 0, copy(f.buf, rest)
}

// recycle gives a frame's pool buffer back. The caller must hold no
// reference to the frame's bytes any more.
func (f *frameReader) recycle(fr frame) {
	if fr.pooled != nil {
		f.pool.put(fr.pooled)
	}
}

// skipLine discards input up to and including the next newline, using one
// small scratch buffer, so an oversized frame never sits in memory whole;
// blocks gathered for it are dropped first.
func (f *frameReader) skipLine(blocks [][]byte) error {
	f.drop(blocks)
	f.off = f.end // whatever is pending belongs to the oversized line
	scratch := make([]byte, readChunk)
	for !f.eof {
		n, err := io.ReadAtLeast(f.src, scratch, 1)
		if err != nil {
			f.eof, f.rerr = true, err
		}
		if i := bytes.IndexByte(scratch[:n], '\n'); i >= 0 {
			f.keepRest(scratch[i+1 : n])
			return errFrameTooLarge
		}
	}
	return errFrameTooLarge
}

func (f *frameReader) endErr() error {
	if f.rerr == nil || errors.Is(f.rerr, io.ErrUnexpectedEOF) {
		return io.EOF
	}
	return f.rerr
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[: n-1 : n-1]
	}
	return b
}

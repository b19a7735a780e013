package wire

import (
	"bytes"
	"errors"
	"io"

	"github.com/continuity-dev/continuity/jsonscan"
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
	// checked, for a frame gathered from many reads, is what validating it
	// while it arrived found (see arrived); nil for a frame cut from the
	// read buffer, which is validated once it is whole.
	checked *verdict
	// follow is the owner's work following the frame while it arrived
	// (follow.go), for a frame handed out in the buffer it followed; nil
	// otherwise. Whoever recycles the frame closes it first.
	follow Follower
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
	// smallHint is the length of the last large frame up to bigBlock
	// while large frames alternate with such frames (0 once two frames
	// beyond bigBlock come in a row): the frame after a 17 MiB tool result
	// is likely the next 1 MiB payload, not another result.
	smallHint int
	// bigHint is the length of the last frame beyond bigBlock: a frame
	// that outgrows a buffer sized from hint goes on in one this large.
	bigHint int
	// val validates the frame being gathered, one read at a time.
	val jsonscan.Validator
	// follow, when set, is offered each request frame of at least
	// followFrom bytes while it arrives (follow.go).
	follow     FollowFunc
	followFrom int
	eof        bool
	rerr       error
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

// bufferSize rounds a wanted buffer size up to a pool class, but never
// beyond two bytes past the frame limit: that is enough to tell a frame at
// the limit ending in \r\n from one beyond it.
func (f *frameReader) bufferSize(want int) int {
	return int(min(int64(classSize(want)), f.max+2))
}

// keepRest copies bytes read past a large frame's newline into the read
// buffer, so the frame's pool buffer can be recycled on its own: into the
// current one's free tail when they fit (the room of the large frame's
// first bytes, which gather took out of it: no frame was ever cut from
// there), else into a new one. A new buffer per large frame made a 1 MiB payload
// allocate 64 KiB it used a few hundred bytes of (the step's small
// events), most of the wire's garbage and so of its collections.
func (f *frameReader) keepRest(rest []byte) {
	f.off = f.end
	if len(rest) > len(f.buf)-f.end {
		f.buf = make([]byte, max(readChunk, len(rest)))
		f.off, f.end = 0, 0
	}
	f.end += copy(f.buf[f.end:], rest)
}

// recycle gives a frame's pool buffer back, closing its follower first.
// The caller must hold no reference to the frame's bytes any more.
func (f *frameReader) recycle(fr frame) {
	endFollow(fr.follow) // it reads the buffer
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

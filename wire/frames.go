package wire

import (
	"bytes"
	"errors"
	"io"
)

// errFrameTooLarge reports a line longer than the frame limit. The reader has
// already skipped the rest of that line.
var errFrameTooLarge = errors.New("frame too large")

const (
	// readChunk is the size of each read from the pipe for ordinary frames.
	readChunk = 64 << 10
	// bigBlock is the largest block a frame is gathered in; a huge frame is
	// gathered in blocks and copied once at its end instead of being
	// reallocated at every doubling.
	bigBlock = 4 << 20
)

// frameReader splits an NDJSON byte stream into frames. Frames are returned
// as slices the caller may keep: the reader never writes into memory it has
// handed out. Small frames are sub-slices of a shared read buffer (no copy);
// a frame that spans reads is gathered in blocks and copied once.
type frameReader struct {
	src  io.Reader
	max  int64
	buf  []byte // buf[start:len(buf)] is read but not yet returned
	off  int
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
func (f *frameReader) next() ([]byte, error) {
	if i := bytes.IndexByte(f.buf[f.off:], '\n'); i >= 0 {
		line := f.buf[f.off : f.off+i : f.off+i]
		f.off += i + 1
		if int64(len(line)) > f.max {
			return nil, errFrameTooLarge
		}
		return trimCR(line), nil
	}
	// The pending bytes are the start of a frame that needs more input.
	var blocks [][]byte
	size := int64(len(f.buf) - f.off)
	if size > 0 {
		blocks = append(blocks, f.buf[f.off:])
	}
	f.buf, f.off = nil, 0
	for {
		if size > f.max {
			return nil, f.skipLine()
		}
		if f.eof {
			if size == 0 {
				return nil, f.endErr()
			}
			return trimCR(join(blocks, size)), nil
		}
		// Blocks grow with the frame (64 KiB, then the size so far, at most
		// 4 MiB): a 1 MiB frame allocates about 1 MiB more, a 64 MiB frame
		// a few dozen blocks, and the join copies it once.
		chunk := int(min(max(size, readChunk), bigBlock))
		b, i, err := f.fill(make([]byte, chunk), size == 0)
		if err != nil {
			f.eof, f.rerr = true, err
		}
		n := len(b)
		if i >= 0 {
			if size+int64(i) > f.max {
				f.buf, f.off = b, i+1
				return nil, errFrameTooLarge
			}
			f.buf, f.off = b, i+1
			if len(blocks) == 0 {
				return trimCR(b[:i:i]), nil
			}
			blocks = append(blocks, b[:i])
			return trimCR(join(blocks, size+int64(i))), nil
		}
		if n > 0 {
			blocks = append(blocks, b)
			size += int64(n)
		}
	}
}

// fill reads into b until b is full, a newline arrives or input ends,
// and returns the filled part and the index of its first newline (-1 when
// none). A pipe read returns at most 64 KiB, so filling the block before
// allocating the next keeps a large frame to a few big allocations. With
// eager (nothing of the frame read yet) it returns after the first read:
// small frames must not wait for a full block.
func (f *frameReader) fill(b []byte, eager bool) ([]byte, int, error) {
	n := 0
	for n < len(b) {
		m, err := f.src.Read(b[n:])
		if i := bytes.IndexByte(b[n:n+m], '\n'); i >= 0 {
			return b[:n+m], n + i, nil
		}
		n += m
		if err != nil {
			if n > 0 && err == io.EOF {
				return b[:n], -1, nil
			}
			return b[:n], -1, err
		}
		if n > 0 && eager {
			break
		}
	}
	return b[:n], -1, nil
}

// skipLine discards input up to and including the next newline, using one
// small scratch buffer, so an oversized frame never sits in memory whole.
func (f *frameReader) skipLine() error {
	scratch := make([]byte, readChunk)
	for !f.eof {
		n, err := io.ReadAtLeast(f.src, scratch, 1)
		if err != nil {
			f.eof, f.rerr = true, err
		}
		if i := bytes.IndexByte(scratch[:n], '\n'); i >= 0 {
			rest := make([]byte, n-i-1)
			copy(rest, scratch[i+1:n])
			f.buf, f.off = rest, 0
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

func join(blocks [][]byte, size int64) []byte {
	out := make([]byte, 0, size)
	for _, b := range blocks {
		out = append(out, b...)
	}
	return out
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[: n-1 : n-1]
	}
	return b
}

package wire

import (
	"runtime/debug"
)

// gather reads the rest of the pending frame into pool buffers. The first
// is, when the pool has one, a recycled buffer sized from the last large
// frame, so in the steady state the whole frame lands in it and is handed
// out in place. A frame that outgrows it goes on, when an earlier frame
// was beyond bigBlock, in one buffer sized from that frame (taken while
// the frame arrives, so the frames behind it do not wait for a join),
// and otherwise in further blocks (each filled before the next is taken,
// at most 4 MiB more at a time, so an oversized line never holds more
// than the limit; see newBlock), joined once into a buffer of its size.
// Each read is validated as it comes, and the validator finds the newline
// (see validate.go). Bytes read past the newline start a new read buffer.
func (f *frameReader) gather() (frame, error) {
	pending := f.buf[f.off:f.end]
	// A buffer the size of the last large frame takes the whole frame at
	// once: a recycled one, or a fresh one while that size is modest. After
	// a huge frame, a fresh buffer its size could be a huge allocation for
	// a small frame, so the frame starts small and grows through blocks.
	// Right after a huge frame that came between smaller ones, the frame
	// starts in a buffer sized from the smaller ones instead (smallHint):
	// a 1 MiB payload after a 17 MiB tool result read into the big buffer
	// was then copied into one of its size after its newline, while the
	// host waited for its reply; a huge frame that does follow moves to
	// the big buffer while it arrives, copying only what filled the small one.
	var first []byte
	var ok bool
	if f.hint > bigBlock && f.smallHint == 0 {
		first, ok = f.pool.tryLarge(0)
	} else {
		h := f.hint
		if h > bigBlock {
			h = f.smallHint
		}
		hinted := f.bufferSize(h + h/8 + 1)
		if first, ok = f.pool.tryGet(hinted); !ok && hinted <= bigBlock {
			first, ok = f.pool.get(hinted), true
		}
	}
	if !ok || len(first) < len(pending) {
		if ok {
			f.pool.put(first)
		}
		first = f.pool.get(f.bufferSize(2 * len(pending)))
	}
	blocks := [][]byte{first[:copy(first, pending)]}
	f.val.Reset()
	// fol follows the frame while it stays in one buffer (see follow.go),
	// offered once enough of it has arrived: it is shown each read once
	// the validator has passed it, so its scan may trust the bytes and the
	// frame is validated once.
	var fol Follower
	tried := false
	f.feedLine(pending) // no newline: next looked
	fol = f.offer(fol, &tried, blocks, len(blocks[0]))
	// The pending bytes are the block's now: their room in the read buffer
	// was never handed out, so the bytes after the frame may go there.
	f.end = f.off
	size := len(blocks[0])
	for {
		last := blocks[len(blocks)-1]
		if overLimit(int64(size), f.max, lastByte(blocks)) {
			endFollow(fol)
			return frame{}, f.skipLine(blocks)
		}
		if f.eof {
			return f.joined(blocks, size, fol), nil
		}
		if len(last) == cap(last) && len(blocks) == 1 && cap(last) <= bigBlock && f.bigHint > size {
			// The frame outgrew a buffer sized from a smaller frame (a
			// 17 MiB tool result after a 1 MiB payload): it goes on in a
			// buffer sized from the last frame beyond bigBlock, taken now,
			// while it arrives. Joining blocks after the newline would
			// allocate and copy all of it while the frames behind it wait
			// (session events borrow their frame, so once the last large
			// one is applied its buffer is usually back in the pool).
			endFollow(fol)          // it follows the buffer the frame leaves
			fol, tried = nil, false // the big buffer can be followed
			big := f.pool.getLarge(f.bigHint)
			copy(big, last)
			f.pool.put(last[:cap(last)])
			last = big[:size]
			blocks[0] = last
		}
		if len(last) == cap(last) {
			endFollow(fol) // the frame goes on in other blocks, to be joined
			fol = nil
			last = newBlock(f.bufferSize(min(size, bigBlock)))[:0]
			blocks = append(blocks, last)
		}
		m, err := f.src.Read(last[len(last):cap(last)])
		if err != nil {
			f.eof, f.rerr = true, err
		}
		read := len(last) + m
		// The frame is offered on what has arrived, before this read is
		// validated, so that a read bringing most of a frame (a 1 MiB
		// payload through a 1 MiB pipe) is followed from its start.
		fol = f.offer(fol, &tried, blocks, read)
		for len(last) < read {
			upto := read
			if fol != nil {
				// A followed frame is validated a piece at a time and
				// each piece shown to the follower at once: its work on
				// one piece overlaps the validation of the next, instead
				// of starting only once the whole read is validated.
				upto = min(read, len(last)+followPiece)
			}
			if i := f.feedLine(last[len(last):upto]); i >= 0 {
				end := len(last) + i
				fol = f.validated(fol, end)
				f.keepRest(last[end+1 : read])
				blocks[len(blocks)-1] = last[:end]
				if size += i; overLimit(int64(size), f.max, lastByte(blocks)) {
					endFollow(fol)
					f.drop(blocks)
					return frame{}, errFrameTooLarge
				}
				return f.joined(blocks, size, fol), nil
			}
			size += upto - len(last)
			last = last[:upto]
			blocks[len(blocks)-1] = last
			fol = f.validated(fol, upto)
		}
	}
}

// followPiece is how much of a followed frame the validator passes before
// the follower is shown it. A read of a 1 MiB frame validated whole kept
// the follower waiting for all of it (about 0.8 ms), so following saved
// nothing; in 128 KiB pieces the two run side by side, and each piece
// costs the follower one wake-up at most.
const followPiece = 128 << 10

// bigBlock is the largest block a growing frame takes at once.
const bigBlock = 4 << 20

// joined returns the frame gathered in blocks (size bytes in all) and
// remembers its size for the next one. A frame in one block is handed out
// in place unless it is at most bigBlock and fills less than a quarter of
// it; otherwise it is copied once into a buffer of its size, each block
// given back as soon as it is copied. A frame beyond bigBlock is joined into a large buffer
// (getLarge), not a power-of-two class. fol, the frame's follower if
// any, goes with a frame handed out in place and is closed otherwise.
func (f *frameReader) joined(blocks [][]byte, size int, fol Follower) frame {
	if size > bigBlock {
		if f.hint > bigBlock {
			f.smallHint = 0 // huge frames in a row: the next is likely huge too
		}
		f.bigHint = size
	} else {
		f.smallHint = size
	}
	f.hint = size
	if len(blocks) == 1 {
		b := blocks[0]
		if size >= cap(b)/4 || size > bigBlock {
			line := trimCR(b[:size:size])
			checked := f.checked(line)
			if fol != nil && (checked == nil || checked.err != nil) {
				// Not JSON: it is answered as malformed, and a follower
				// is shown only bytes the validator passed.
				endFollow(fol)
				fol = nil
			}
			if fol != nil {
				fol.Finish(size)
			}
			return frame{line: line, pooled: b[:cap(b)], checked: checked, follow: fol}
		}
		// A small frame in a big buffer: move it, so that a frame its
		// handler keeps does not hold the big buffer too. A frame beyond
		// bigBlock stays where it is, whatever the buffer's size: the
		// copy would come after its newline, while the frames behind it
		// wait (a 17 MiB tool result in the 72 MiB buffer of an earlier
		// 64 MiB payload was copied on every step, about 1.3 ms before
		// the next agent/request was read), and the big buffer is the
		// pool's anyway once the frame is released. Until then the frame
		// counts in flight as the whole buffer (frame.size), the memory
		// it holds.
	}
	endFollow(fol)
	var out []byte
	if size > bigBlock {
		out = f.pool.getLarge(size)
	} else {
		out = f.pool.get(f.bufferSize(size))
	}
	n := 0
	for i, b := range blocks {
		n += copy(out[n:], b)
		if i > 0 {
			freeBlock(b)
		}
	}
	f.pool.put(blocks[0])
	line := trimCR(out[:n:n])
	return frame{line: line, pooled: out, checked: f.checked(line)}
}

// checked is the verdict of validating line while it arrived (nil when
// it was not).
func (f *frameReader) checked(line []byte) *verdict {
	if !checkWhileArriving {
		return nil
	}
	return f.arrived(line)
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

package proxy

import "bytes"

// sseFraming carries server-sent events' line framing across reads. A
// line ends in \n, \r\n or \r, and a \r may end one read with its \n
// starting the next. Of the current line it holds only what it must: the
// start of a line that began in an earlier read and may be read (event:
// or data:), bounded by maxEventBytes.
type sseFraming struct {
	line    []byte // the held start of the current line, without its end
	started bool   // the current line has bytes: its end is not a blank line
	unread  bool   // the current line is not held (of a skipped event, neither event: nor data:, or past the bound)
	cr      bool   // the last byte seen was \r: a \n right after it ends nothing
	// skipped is the last event: line, whole and without its end, that
	// made the tap skip its event (at most maxSkippedLine bytes; none
	// when longer).
	skipped []byte
}

// maxSkippedLine bounds sseFraming.skipped: an event type is a short name.
const maxSkippedLine = 256

// feed frames one read's bytes, b, which the tap borrows for the call.
// A stream with \n line ends has no \r, so the \r are looked for once per
// read; up to the next \r a line ends at the next \n, and an event the
// tap skips ends at the next "\n\n" (skipEvent), whatever lines it has.
func (t *bodyTap) feed(b []byte) {
	f := &t.sse
	if f.cr {
		f.cr = false
		if len(b) > 0 && b[0] == '\n' {
			b = b[1:]
		}
	}
	cr := bytes.IndexByte(b, '\r') // in b; -1: none left in this read
	for len(b) > 0 {
		clean := b // b up to its next \r
		if cr >= 0 {
			clean = b[:cr]
		}
		if t.skipping() && len(clean) > 0 {
			n := t.skipEvent(clean)
			b = b[n:]
			if cr >= 0 {
				cr -= n
			}
			continue
		}
		i := bytes.IndexByte(clean, '\n')
		if i < 0 {
			i = cr
		}
		if i < 0 {
			t.partLine(b)
			return
		}
		t.endLine(b[:i])
		n := i + 1
		if b[i] == '\r' {
			if n == len(b) {
				f.cr = true
			} else if b[n] == '\n' {
				n++
			}
		}
		b = b[n:]
		if cr >= 0 {
			if cr -= n; cr < 0 {
				cr = bytes.IndexByte(b, '\r')
			}
		}
	}
}

// skipEvent passes over the bytes of a skipped event in b, which holds
// no \r and is not empty, up to and including the blank line that ends
// it, and returns how many it passed: all of b when the event goes on
// past it. An event right after it whose first line is the event: line
// that made the tap skip the last one (sseFraming.skipped) is skipped
// too, on to its end (skipRun).
func (t *bodyTap) skipEvent(b []byte) int {
	f := &t.sse
	n, ended, chained, started := skipRun(b, f.skipped, !f.started)
	if chained {
		t.data, t.skip, t.tooBig = t.data[:0], true, false
	}
	if !ended {
		f.started, f.unread = started, started
		return n
	}
	f.started, f.unread = false, false
	t.endEvent()
	return n
}

// skipRun finds the end of the skipped event b starts in (at a line's
// start when lineStart), passing on through each next event whose first
// line is skipped: a stream of text deltas is one such event after
// another, and each costs one IndexByte over its data line and one
// compare of its event: line. It returns how many bytes it passed; ended
// when the last event's blank line is among them (else started: b ends
// inside a line); chained when it passed into a next event.
func skipRun(b, skipped []byte, lineStart bool) (n int, ended, chained, started bool) {
	k := len(skipped)
	i := 0
	if !lineStart {
		j := bytes.IndexByte(b, '\n')
		if j < 0 {
			return len(b), false, false, true
		}
		i = j + 1
	}
	for {
		// i is where a line starts.
		if i >= len(b) {
			return len(b), false, chained, false
		}
		if b[i] == '\n' {
			i++ // past the blank line that ends the event
			if k == 0 || len(b)-i <= k || b[i+k] != '\n' || string(b[i:i+k]) != string(skipped) {
				return i, true, chained, false
			}
			chained = true
			i += k + 1
			continue
		}
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return len(b), false, chained, true
		}
		i += j + 1
	}
}

// partLine holds b, the start of a line that goes on past this read,
// when the line may be read; past the bound the event goes unread.
func (t *bodyTap) partLine(b []byte) {
	f := &t.sse
	f.started = true
	if f.unread || t.skipping() {
		f.unread = true
		return
	}
	if len(f.line)+len(b) > maxEventBytes {
		t.overflow()
		f.line, f.unread = f.line[:0], true
		return
	}
	f.line = append(f.line, b...)
	if len(f.line) >= len("event:") && !bytes.HasPrefix(f.line, []byte("event:")) && !bytes.HasPrefix(f.line, []byte("data:")) {
		f.line, f.unread = f.line[:0], true // a comment, id: or retry: line
	}
}

// endLine handles the end of the current line, of which tail is the part
// in this read: a blank line ends the event; a line of an event that is
// read is read from tail itself when it began in this read.
func (t *bodyTap) endLine(tail []byte) {
	f := &t.sse
	started, unread := f.started, f.unread
	f.started, f.unread = false, false
	switch {
	case !started && len(tail) == 0:
		t.endEvent()
	case unread || t.skipping():
	case !started:
		t.readLine(tail)
	case len(f.line)+len(tail) > maxEventBytes:
		t.overflow()
		f.line = f.line[:0]
	default:
		f.line = append(f.line, tail...)
		t.readLine(f.line)
		f.line = f.line[:0]
	}
}

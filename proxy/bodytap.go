package proxy

import (
	"bytes"
	"io"
)

// Bounds of what a tap holds to read issuance from a response. A larger
// event or JSON body still passes through whole; only its items go
// unrecorded (and are then of unknown issuer).
const (
	maxEventBytes = 32 << 20
	maxJSONBytes  = 64 << 20
)

// bodyTap passes an upstream response body through unchanged and hands
// what a tap reads issuance from to its callbacks as the bytes go by: for
// a stream (server-sent events) each event's data, holding at most the
// current event; for JSON the body up to maxJSONBytes, at its end. The
// Responses tap (tap.go) and the Gemini one (gemini_tap.go) differ only
// in the callbacks. Past a bound the event or body goes unread.
//
// Its callbacks run on the goroutine that reads the body; data is only
// valid during the call.
type bodyTap struct {
	body   io.ReadCloser
	stream bool
	// wants reports whether an event of the type its event: line names
	// is read; nil reads every event. An event not wanted is not held.
	wants func(eventType []byte) bool
	// event gets one event's data lines joined by newlines, or the JSON
	// body.
	event func(data []byte)
	// endsAtEOF dispatches an event the stream did not end with a blank
	// line (Gemini's last event may have none).
	endsAtEOF bool
	// closed runs once, when the body is closed (the tap persists what
	// the response issued).
	closed func()

	line   []byte // the current line of a stream, without its newline
	data   []byte // the current event's data lines, joined by newlines; or the JSON body
	skip   bool   // the current event is not one wanted
	tooBig bool   // the current event or the JSON body passed its bound
	lines  lineFraming
}

// Read implements io.Reader: the bytes are the upstream's, as they arrive.
func (t *bodyTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if n > 0 {
		if t.stream {
			t.lines.feed(p[:n], t.appendLine, t.endLine)
		} else if !t.tooBig {
			if len(t.data)+n > maxJSONBytes {
				t.tooBig, t.data = true, nil
			} else {
				t.data = append(t.data, p[:n]...)
			}
		}
	}
	if err == io.EOF {
		switch {
		case t.stream && t.endsAtEOF:
			t.endLine()
			t.endLine() // an event the stream did not end with a blank line
		case !t.stream && !t.tooBig:
			t.event(t.data)
		}
		t.data = nil
	}
	return n, err
}

// Close runs closed and closes the upstream body.
func (t *bodyTap) Close() error {
	if t.closed != nil {
		t.closed()
		t.closed = nil
	}
	return t.body.Close()
}

// appendLine adds to the current line; within a skipped or oversized event
// only the line's start is kept, enough to tell a blank line (the event's
// end) from one that is not.
func (t *bodyTap) appendLine(b []byte) {
	if (t.skip || t.tooBig) && len(t.line) >= 8 {
		return
	}
	if len(t.line)+len(b) > maxEventBytes {
		t.tooBig, t.data = true, nil
		t.line = append(t.line[:0], b[:min(len(b), 8)]...)
		return
	}
	t.line = append(t.line, b...)
}

// endLine handles one complete line.
func (t *bodyTap) endLine() {
	line := t.line
	t.line = t.line[:0]
	switch {
	case len(line) == 0:
		if !t.skip && !t.tooBig && len(t.data) > 0 {
			t.event(t.data)
		}
		t.data, t.skip, t.tooBig = t.data[:0], false, false
	case t.skip || t.tooBig:
	case bytes.HasPrefix(line, []byte("event:")):
		t.skip = t.wants != nil && !t.wants(bytes.TrimSpace(line[len("event:"):]))
	case bytes.HasPrefix(line, []byte("data:")):
		v := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
		if len(t.data) > 0 {
			t.data = append(t.data, '\n')
		}
		if len(t.data)+len(v) > maxEventBytes {
			t.tooBig, t.data = true, nil
			return
		}
		t.data = append(t.data, v...)
	}
}

// lineFraming carries server-sent events' line framing across reads: a
// line ends in \n, \r\n or \r, and a \r may end one read with its \n
// starting the next.
type lineFraming struct {
	cr bool // the last byte seen was \r: a \n right after it ends nothing
}

// feed splits b into pieces of the current line (part) and line ends (end).
func (f *lineFraming) feed(b []byte, part func([]byte), end func()) {
	if f.cr && len(b) > 0 && b[0] == '\n' {
		b = b[1:]
	}
	f.cr = false
	for len(b) > 0 {
		i := lineEnd(b)
		if i < 0 {
			part(b)
			return
		}
		part(b[:i])
		end()
		if b[i] == '\r' {
			if i+1 == len(b) {
				f.cr = true
			} else if b[i+1] == '\n' {
				i++
			}
		}
		b = b[i+1:]
	}
}

// lineEnd is the index of the first \r or \n in b, or -1: two IndexByte
// scans (vectorised) instead of a byte-by-byte IndexAny, since a stream is
// mostly long lines.
func lineEnd(b []byte) int {
	nl := bytes.IndexByte(b, '\n')
	head := b
	if nl >= 0 {
		head = b[:nl]
	}
	if cr := bytes.IndexByte(head, '\r'); cr >= 0 {
		return cr
	}
	return nl
}

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
// A read's bytes are tapped before Read returns them, so an item is
// recorded as issued before the client has it (and could send it back).
// The tap reads them where they lie, in the caller's buffer during the
// call (borrowed, never kept): only a line that goes on past the read's
// end is copied, and of an event the tap does not want it looks only for
// the blank line that ends it (bodytap_frame.go).
//
// Its callbacks run on the goroutine that reads the body; data is only
// valid during the call.
type bodyTap struct {
	body   io.ReadCloser
	stream bool
	// wants reports whether an event of the type its event: line names
	// is read; nil reads every event. An event not wanted is not held.
	// Its verdict depends on the type alone: an event whose event: line
	// is, byte for byte, the one of the last event skipped is skipped
	// without asking again.
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

	data   []byte // the current event's data lines, joined by newlines; or the JSON body
	skip   bool   // the current event is not one wanted
	tooBig bool   // the current event or the JSON body passed its bound
	sse    sseFraming
}

// Read implements io.Reader: the bytes are the upstream's, as they arrive.
func (t *bodyTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if n > 0 {
		if t.stream {
			t.feed(p[:n])
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
			t.endLine(nil)
			t.endLine(nil) // an event the stream did not end with a blank line
		case !t.stream && !t.tooBig:
			t.event(t.data)
		}
		t.data, t.sse.line = nil, nil
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

// skipping reports whether the current event goes unread: not wanted, or
// past its bound. Only its end, a blank line, matters.
func (t *bodyTap) skipping() bool { return t.skip || t.tooBig }

// readLine handles a complete line of an event that is read, neither
// blank nor of a skipped event.
func (t *bodyTap) readLine(line []byte) {
	switch {
	case bytes.HasPrefix(line, []byte("event:")):
		t.skip = t.wants != nil && !t.wants(bytes.TrimSpace(line[len("event:"):]))
		if t.skip && len(line) <= maxSkippedLine {
			t.sse.skipped = append(t.sse.skipped[:0], line...)
		}
	case bytes.HasPrefix(line, []byte("data:")):
		v := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
		if len(t.data) > 0 {
			t.data = append(t.data, '\n')
		}
		if len(t.data)+len(v) > maxEventBytes {
			t.overflow()
			return
		}
		t.data = append(t.data, v...)
	}
}

// endEvent handles a blank line: the current event, if read and not
// empty, goes to event.
func (t *bodyTap) endEvent() {
	if !t.skipping() && len(t.data) > 0 {
		t.event(t.data)
	}
	t.data, t.skip, t.tooBig = t.data[:0], false, false
}

// overflow marks the current event as past its bound: what is held of it
// is dropped, and the rest of it goes unread up to its blank line.
func (t *bodyTap) overflow() {
	t.tooBig, t.data = true, nil
}

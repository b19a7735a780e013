package proxy

import (
	"bytes"
	"io"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/filter"
)

// Bounds of what the tap holds to read issuance from a response. A larger
// event or JSON body still passes through whole; only its items go
// unrecorded (and are then of unknown issuer).
const (
	maxEventBytes = 32 << 20
	maxJSONBytes  = 64 << 20
)

// tap passes an upstream response body through unchanged and records, from
// the bytes as they go by, which account each reasoning and compaction item
// of the response was issued to. For a stream it keeps at most the current
// event; for JSON the body up to maxJSONBytes, read at the end.
type tap struct {
	body    io.ReadCloser
	stream  bool
	account Account
	record  func(fp [32]byte, a Account)
	// persist writes the response's issued items to the ledger when the
	// body is closed, in one transaction.
	persist func(fps [][32]byte)
	issued  [][32]byte

	line   []byte // the current line of a stream, without its newline
	data   []byte // the current event's data lines, joined by newlines
	skip   bool   // the current event is not one the tap reads
	tooBig bool   // the current event or JSON body passed its bound
	lines  lineFraming
}

// Read implements io.Reader: the bytes are the upstream's, as they arrive.
func (t *tap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if n > 0 {
		if t.stream {
			t.scanStream(p[:n])
		} else if !t.tooBig {
			if len(t.data)+n > maxJSONBytes {
				t.tooBig, t.data = true, nil
			} else {
				t.data = append(t.data, p[:n]...)
			}
		}
	}
	if err == io.EOF && !t.stream && !t.tooBig {
		gjson.GetBytes(t.data, "output").ForEach(func(_, it gjson.Result) bool {
			t.item(it)
			return true
		})
		t.data = nil
	}
	return n, err
}

// Close persists what the response issued and closes the upstream body.
func (t *tap) Close() error {
	if len(t.issued) > 0 {
		t.persist(t.issued)
		t.issued = nil
	}
	return t.body.Close()
}

// scanStream feeds stream bytes through the line and event framing of
// server-sent events (a blank line ends an event; data: lines are its
// payload).
func (t *tap) scanStream(b []byte) { t.lines.feed(b, t.appendLine, t.endLine) }

// appendLine adds to the current line; within a skipped or oversized event
// only the line's start is kept, enough to see where the event ends.
func (t *tap) appendLine(b []byte) {
	if (t.skip || t.tooBig) && len(t.line) >= 8 {
		return
	}
	if len(t.line)+len(b) > maxEventBytes {
		t.tooBig, t.data = true, nil
		return
	}
	t.line = append(t.line, b...)
}

// endLine handles one complete line.
func (t *tap) endLine() {
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
		// Only output_item.done names an issued item; other events need no
		// holding at all.
		t.skip = string(bytes.TrimSpace(line[len("event:"):])) != "response.output_item.done"
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

// event reads one event's data.
func (t *tap) event(data []byte) {
	if gjson.GetBytes(data, "type").Str == "response.output_item.done" {
		t.item(gjson.GetBytes(data, "item"))
	}
}

// item records one output item if it carries encrypted content.
func (t *tap) item(it gjson.Result) {
	switch it.Get("type").Str {
	case "reasoning", "compaction":
		if c := it.Get("encrypted_content"); c.Type == gjson.String && c.Str != "" {
			fp := filter.Fingerprint(c.Str)
			t.record(fp, t.account)
			t.issued = append(t.issued, fp)
		}
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

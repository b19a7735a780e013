package proxy

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// refEvents is the tap's reading of a whole stream, line by line, as the
// tap read it before its framing worked on reads: lines end in \r\n, \r
// or \n; a blank line ends an event, dispatched when it was not skipped
// and has data; an event: line names the type wants judges; data: lines
// are joined by \n, one space after the colon dropped. It is the oracle
// the framing is held to, whatever the reads.
func refEvents(body string, wants func([]byte) bool, endsAtEOF bool) []string {
	var lines []string
	cur := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\r':
			lines = append(lines, body[cur:i])
			if i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			cur = i + 1
		case '\n':
			lines = append(lines, body[cur:i])
			cur = i + 1
		}
	}
	if endsAtEOF {
		lines = append(lines, body[cur:], "")
	}
	var out []string
	var data []byte
	skip := false
	for _, l := range lines {
		switch {
		case l == "":
			if !skip && len(data) > 0 {
				out = append(out, string(data))
			}
			data, skip = data[:0], false
		case skip:
		case strings.HasPrefix(l, "event:"):
			skip = wants != nil && !wants(bytes.TrimSpace([]byte(l[len("event:"):])))
		case strings.HasPrefix(l, "data:"):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, strings.TrimPrefix(l[len("data:"):], " ")...)
		}
	}
	return out
}

// tapEvents reads body through a bodyTap in the reads given (each read
// of at most the next size, the last repeated) and returns the bytes that
// came out and the events dispatched.
func tapEvents(t *testing.T, body string, sizes []int, wants func([]byte) bool, endsAtEOF bool) (string, []string) {
	t.Helper()
	var got []string
	tp := &bodyTap{body: io.NopCloser(strings.NewReader(body)), stream: true, wants: wants, endsAtEOF: endsAtEOF,
		event: func(d []byte) { got = append(got, string(d)) }}
	var out []byte
	buf := make([]byte, len(body)+1)
	for k := 0; ; k++ {
		n := sizes[min(k, len(sizes)-1)]
		m, err := tp.Read(buf[:n])
		out = append(out, buf[:m]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return string(out), got
}

// wantKeep reads only events of type keep (and those without a type).
func wantKeep(typ []byte) bool { return string(typ) == "keep" }

// adversarialStreams are streams whose framing is the hard part: every
// line end and their mixes, a \r\n split wherever the reads fall, empty
// lines, comments and other fields, skipped events one after another
// (with look-alike event: lines), data before an event: line, and a last
// event that ends without a blank line or a line end.
var adversarialStreams = map[string]string{
	"lf":   "event: keep\ndata: a\n\nevent: skip\ndata: b\n\nevent: keep\ndata: c\n\n",
	"crlf": "event: keep\r\ndata: a\r\n\r\nevent: skip\r\ndata: b\r\n\r\nevent: keep\r\ndata: c\r\n\r\n",
	"cr":   "event: keep\rdata: a\r\revent: skip\rdata: b\r\revent: keep\rdata: c\r\r",
	"mixed": "event: skip\r\ndata: s1\n\nevent: skip\ndata: s2\r\rdata: untyped\r\n\n" +
		"event: skip\n\revent: keep\ndata: k1\r\ndata: k2\r\n\r\n",
	"empty lines": "\n\n\r\n\r\r\nevent: keep\n\n\ndata: a\n\n\n\n" + "event: skip\n\n\n" + "data:\n\ndata:\ndata:\n\ndata: x\n\n",
	"comments and fields": ": comment\nid: 7\nretry: 10\nevent: keep\n: mid\ndata:no-space\ndata:  two\ndata\nevent:keep\n\n" +
		": " + strings.Repeat("c", 100) + "\n\n",
	"skipped runs": strings.Repeat("event: skip\ndata: {\"x\":1}\n\n", 5) + "event: skipx\ndata: look-alike type\n\n" +
		strings.Repeat("event: skip\ndata: {\"x\":1}\n\n", 3) + "event: skip\r\ndata: crlf\r\n\r\n" +
		"event: skip\ndata: before keep\n\nevent: keep\ndata: kept\n\n" + "event: skip\n\nevent: skip\n\ndata: after\n\n",
	"skipped then retyped": "event: skip\nevent: keep\ndata: still skipped\n\n" + "data: first\nevent: skip\n\n" +
		"event: keep\nevent: skip\ndata: no\n\ndata: yes\n\n",
	"multi-line data": "event: keep\ndata: {\"type\":\"response.output_item.done\",\ndata: \"item\":{}}\n\n",
	"no blank at end": "event: keep\ndata: a\n\ndata: last",
	"cr at end":       "event: keep\ndata: a\r\n\r\ndata: last\r",
	"skip at end":     "event: skip\ndata: a\n\nevent: skip\ndata: b",
	"lf lf at end":    "data: a\n\n",
}

// TestTapFramingEveryRead: for each adversarial stream, in reads of 1 to
// 7 bytes and in two reads split at every byte, the tap passes the bytes
// unchanged and dispatches exactly the oracle's events, with and without
// a judge of types, ending at EOF or not.
func TestTapFramingEveryRead(t *testing.T) {
	for name, body := range adversarialStreams {
		for _, wants := range []func([]byte) bool{nil, wantKeep} {
			for _, eof := range []bool{false, true} {
				want := refEvents(body, wants, eof)
				check := func(sizes []int) {
					out, got := tapEvents(t, body, sizes, wants, eof)
					if out != body {
						t.Fatalf("%s, reads %v: bytes changed", name, sizes)
					}
					if strings.Join(got, "|") != strings.Join(want, "|") {
						t.Fatalf("%s (judged %v, endsAtEOF %v), reads %v:\n got  %q\n want %q", name, wants != nil, eof, sizes, got, want)
					}
				}
				for n := 1; n <= 7; n++ {
					check([]int{n})
				}
				check([]int{len(body)})
				for i := 1; i < len(body); i++ {
					check([]int{i, len(body)})
				}
			}
		}
	}
}

// TestTapFramingOracleHasEvents: the streams are not vacuous; the oracle
// finds the events the tap is held to, the judge removing some.
func TestTapFramingOracleHasEvents(t *testing.T) {
	got := refEvents(adversarialStreams["mixed"], wantKeep, false)
	if strings.Join(got, "|") != "untyped|k1\nk2" {
		t.Fatalf("oracle: %q", got)
	}
	got = refEvents(adversarialStreams["skipped runs"], wantKeep, false)
	if strings.Join(got, "|") != "kept|after" {
		t.Fatalf("oracle: %q", got)
	}
}

// TestTapFramingHugeEvents: an event past maxEventBytes, in one read or
// in many, is passed through, not dispatched and not held, and the next
// event is read; a huge event the tap skips is not held either.
func TestTapFramingHugeEvents(t *testing.T) {
	huge := "event: keep\ndata: " + strings.Repeat("x", maxEventBytes) + "\n" + "data: y\n\n"
	hugeLine := "data: " + strings.Repeat("z", maxEventBytes+10) + "\r\n\r\n"
	hugeSkipped := "event: skip\ndata: " + strings.Repeat("s", maxEventBytes+1) + "\n\n"
	longType := "event: " + strings.Repeat("t", maxEventBytes) + "\ndata: unnamed\n\n"
	next := "event: keep\ndata: next\n\n"
	for _, body := range []string{huge + next, hugeLine + next, hugeSkipped + next, longType + next} {
		for _, n := range []int{len(body), 64 << 10, 32<<10 + 3} {
			var got []string
			tp := &bodyTap{body: io.NopCloser(strings.NewReader(body)), stream: true, wants: wantKeep,
				event: func(d []byte) { got = append(got, string(d)) }}
			held := 0
			out := 0
			buf := make([]byte, n)
			for {
				m, err := tp.Read(buf)
				out += m
				held = max(held, cap(tp.data), cap(tp.sse.line))
				if err != nil {
					break
				}
			}
			if out != len(body) || strings.Join(got, "|") != "next" {
				t.Fatalf("%.20q… in reads of %d: passed %d of %d bytes, dispatched %.40q", body, n, out, len(body), got)
			}
			if held > 2*maxEventBytes {
				t.Fatalf("%.20q… in reads of %d: held %d bytes", body, n, held)
			}
			if strings.HasPrefix(body, "event: skip") && held > 1<<10 {
				t.Fatalf("a skipped event was held: %d bytes", held)
			}
		}
	}
}

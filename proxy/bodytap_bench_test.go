package proxy

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// longStream is the bench's long Responses answer (bench/proxy.go): n
// bytes of output_text.delta events, which the tap skips.
func longStream(n int) []byte {
	var b bytes.Buffer
	delta := `{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"` +
		strings.Repeat("x", 64) + `","logprobs":[]}`
	for b.Len() < n {
		b.WriteString("event: response.output_text.delta\ndata: " + delta + "\n\n")
	}
	return b.Bytes()
}

// BenchmarkTapStream is the tap's own work on a 16 MiB stream read in
// 32 KiB pieces, as httputil.ReverseProxy reads it:
//
//	go test -run '^$' -bench TapStream ./proxy
func BenchmarkTapStream(b *testing.B) {
	body := longStream(16 << 20)
	buf := make([]byte, 32<<10)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		tp := newTap(io.NopCloser(bytes.NewReader(body)), true, Account{}, func([32]byte, Account) {}, func([][32]byte) {})
		for {
			_, err := tp.Read(buf)
			if err != nil {
				break
			}
		}
	}
}

// BenchmarkReadStream is BenchmarkTapStream's reads alone, without the
// tap: the floor the tap's own cost is the difference from.
func BenchmarkReadStream(b *testing.B) {
	body := longStream(16 << 20)
	buf := make([]byte, 32<<10)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		r := bytes.NewReader(body)
		for {
			_, err := r.Read(buf)
			if err != nil {
				break
			}
		}
	}
}

// BenchmarkTapFrame is the framing alone on the same stream, fed 32 KiB
// at a time with no read or copy around it.
func BenchmarkTapFrame(b *testing.B) {
	body := longStream(16 << 20)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		tp := newTap(io.NopCloser(bytes.NewReader(nil)), true, Account{}, func([32]byte, Account) {}, func([][32]byte) {})
		for c := body; len(c) > 0; {
			n := min(len(c), 32<<10)
			tp.feed(c[:n])
			c = c[n:]
		}
	}
}

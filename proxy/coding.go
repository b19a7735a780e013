package proxy

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// payload is a request body as the proxy filters it and as the client sent
// it. Codex compresses its Responses requests with zstd when it signs in
// with ChatGPT to a provider it takes for OpenAI's; the proxy filters the
// JSON inside and sends what it changed compressed the same way, so the
// upstream gets the coding the client declared.
type payload struct {
	plain  []byte // the JSON body, decompressed when the client compressed it
	sent   []byte // the bytes as the client sent them (plain when not compressed)
	coding string // "gzip", "zstd" or "deflate" when compressed, else ""
	// rawDeflate: the deflate body was a bare DEFLATE stream, not the zlib
	// format HTTP names deflate, and is compressed again as one.
	rawDeflate bool
}

// decodable reports whether a Content-Encoding is one the proxy can open:
// none (or identity), gzip, zstd or deflate. br (no decoder in the
// standard library, and no known client sends it to a Responses endpoint)
// and chains of codings are passed on unfiltered.
func decodable(enc string) bool {
	switch codingOf(enc) {
	case "", "gzip", "zstd", "deflate":
		return true
	}
	return false
}

// codingOf is a Content-Encoding as the proxy compares it: lower case,
// trimmed, and "" for a plain body (none, or identity).
func codingOf(enc string) string {
	c := strings.ToLower(strings.TrimSpace(enc))
	if c == "identity" {
		return ""
	}
	return c
}

// zlibHeader reports whether b starts with a zlib header (RFC 1950: the
// DEFLATE method, and a check that makes the first two bytes a multiple of
// 31). HTTP's deflate is the zlib format (RFC 9110 §8.4.1.2), but some
// implementations send a bare DEFLATE stream under the name; its first
// bytes fail this check but for a rare chance, and then it fails to
// decompress by name rather than being guessed at.
func zlibHeader(b []byte) bool {
	return len(b) >= 2 && b[0]&0x0f == 8 && (uint(b[0])<<8|uint(b[1]))%31 == 0
}

// out is the body to forward: the client's own bytes when the filter left
// the body as it was, else pieces, compressed again when the client had.
func (b payload) out(pieces [][]byte, changed bool) ([][]byte, error) {
	switch {
	case !changed:
		return [][]byte{b.sent}, nil
	case b.coding == "":
		return pieces, nil
	}
	var buf bytes.Buffer
	w, err := b.compressor(&buf)
	if err != nil {
		return nil, err
	}
	for _, p := range pieces {
		if _, err := w.Write(p); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return [][]byte{buf.Bytes()}, nil
}

// compressor writes the body's coding into buf, at the fastest level: the
// filtered body is on its way to the upstream and the client waits.
func (b payload) compressor(buf *bytes.Buffer) (io.WriteCloser, error) {
	switch {
	case b.coding == "gzip":
		return gzip.NewWriterLevel(buf, gzip.BestSpeed)
	case b.coding == "zstd":
		return zstd.NewWriter(buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	case b.rawDeflate:
		return flate.NewWriter(buf, flate.BestSpeed)
	default: // deflate, in the zlib format
		return zlib.NewWriterLevel(buf, zlib.BestSpeed)
	}
}

package proxy

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// maxDecodedBytes bounds a compressed request body once decompressed, as
// maxRequestBytes bounds a plain one: a small zstd body can expand without
// limit.
const maxDecodedBytes = maxRequestBytes

// Decoding errors, answered 413 and 400 with nothing sent.
var (
	errDecodedTooLarge = errors.New("the decompressed request body is larger than the proxy's bound")
	errUndecodable     = errors.New("the compressed request body could not be decompressed")
)

// payload is a request body as the proxy filters it and as the client sent
// it. Codex compresses its Responses requests with zstd when it signs in
// with ChatGPT to a provider it takes for OpenAI's; the proxy filters the
// JSON inside and sends what it changed compressed the same way.
type payload struct {
	plain  []byte // the JSON body, decompressed when the client compressed it
	sent   []byte // the bytes as the client sent them (plain when not compressed)
	coding string // "gzip" or "zstd" when compressed, else ""
}

// decodable reports whether a Content-Encoding is one the proxy can open:
// none (or identity), gzip, or zstd. Anything else — br, deflate, a chain —
// no known client sends to a Responses endpoint.
func decodable(enc string) bool {
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "", "identity", "gzip", "zstd":
		return true
	}
	return false
}

// openPayload decompresses sent by its Content-Encoding enc (decodable)
// to at most limit bytes (maxDecodedBytes).
func openPayload(sent []byte, enc string, limit int) (payload, error) {
	coding := strings.ToLower(strings.TrimSpace(enc))
	if coding == "" || coding == "identity" {
		return payload{plain: sent, sent: sent}, nil
	}
	var rd io.Reader
	switch coding {
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(sent))
		if err != nil {
			return payload{}, fmt.Errorf("%w (gzip: %v)", errUndecodable, err)
		}
		rd = zr
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(sent), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecodedBytes))
		if err != nil {
			return payload{}, fmt.Errorf("%w (zstd: %v)", errUndecodable, err)
		}
		defer zr.Close()
		rd = zr
	}
	plain, err := io.ReadAll(io.LimitReader(rd, int64(limit)+1))
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) || len(plain) > limit:
		return payload{}, errDecodedTooLarge
	case err != nil:
		return payload{}, fmt.Errorf("%w (%s: %v)", errUndecodable, coding, err)
	}
	return payload{plain: plain, sent: sent, coding: coding}, nil
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
	var w io.WriteCloser
	if b.coding == "gzip" {
		w, _ = gzip.NewWriterLevel(&buf, gzip.BestSpeed) // a valid level: no error
	} else {
		zw, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		w = zw
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

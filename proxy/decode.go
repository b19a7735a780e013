package proxy

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// maxDecodedBytes bounds a compressed request body once decompressed, as
// maxRequestBytes bounds a plain one: a small zstd body can expand without
// limit.
const maxDecodedBytes = maxRequestBytes

// maxZstdWindow bounds the window a zstd frame may ask the streaming
// decoder to keep (the size pass, below); 128 MiB is what zstd's own
// decoder accepts without being told more (--long=27).
const maxZstdWindow = 128 << 20

// countChunk is the scratch buffer of the size pass.
const countChunk = 256 << 10

// Decoding errors, answered 413 and 400 with nothing sent.
var (
	errDecodedTooLarge = errors.New("the decompressed request body is larger than the proxy's bound")
	errUndecodable     = errors.New("the compressed request body could not be decompressed")
	errZstdWindow      = fmt.Errorf("%w (zstd: its window is larger than %d MiB)", errUndecodable, maxZstdWindow>>20)
)

// openPayload decompresses sent by its Content-Encoding enc (decodable)
// to at most limit bytes (maxDecodedBytes), charging what it holds to h.
//
// The body is decoded into one buffer of its decoded size, charged before
// it is allocated, so a body's peak is its decoded size plus the
// compressed bytes and the decoder's state, never a buffer grown by
// doubling. The size is the one the body declares — a zstd frame's content
// size, a gzip member's ISIZE — and when it declares none, or the
// declaration proves short, a first pass decodes it into a small scratch
// buffer only to count. A body past limit is refused by its declared size
// before any of it is decoded, else as soon as the count passes limit.
func openPayload(sent []byte, enc string, limit int, h *holding) (payload, error) {
	coding := codingOf(enc)
	if coding == "" {
		return payload{plain: sent, sent: sent}, nil
	}
	pay := payload{sent: sent, coding: coding, rawDeflate: coding == "deflate" && !zlibHeader(sent)}
	if n, ok := declaredSize(sent, coding); ok {
		if n > int64(limit) {
			return payload{}, errDecodedTooLarge
		}
		if err := h.take(n); err != nil {
			return payload{}, err
		}
		plain, whole, err := pay.decodeInto(make([]byte, 0, n))
		if err != nil || whole {
			pay.plain = plain
			return pay, err
		}
		// More than declared (several frames or members): counted below.
	}
	if coding == "zstd" {
		// The size pass's streaming decoder keeps up to a window.
		var hdr zstd.Header
		if hdr.Decode(sent) == nil {
			if err := h.take(int64(min(max(hdr.WindowSize, hdr.FrameContentSize), maxZstdWindow)) + 128<<10); err != nil {
				return payload{}, err
			}
		}
	}
	n, err := pay.count(limit)
	if err != nil {
		return payload{}, err
	}
	if err := h.take(n); err != nil {
		return payload{}, err
	}
	plain, whole, err := pay.decodeInto(make([]byte, 0, n))
	if err == nil && (!whole || int64(len(plain)) != n) {
		err = fmt.Errorf("%w (%s: it decoded to a different size the second time)", errUndecodable, coding)
	}
	pay.plain = plain
	return pay, err
}

// declaredSize is the decoded size sent declares, if it declares one: a
// zstd frame's content size (of the first frame), a gzip member's ISIZE
// (of the last member, modulo 2³², and only up to maxDecodedBytes: past it
// the count decides). Either may be short; decodeInto finds out.
func declaredSize(sent []byte, coding string) (int64, bool) {
	switch coding {
	case "zstd":
		var hdr zstd.Header
		if hdr.Decode(sent) == nil && hdr.HasFCS {
			return int64(min(hdr.FrameContentSize, 1<<62)), true
		}
	case "gzip":
		// Only a hint: a cut or forged body's last bytes are anything.
		if len(sent) >= 18 {
			n := int64(binary.LittleEndian.Uint32(sent[len(sent)-4:]))
			return n, n <= maxDecodedBytes
		}
	}
	return 0, false
}

// decodeInto decodes the body into dst, never beyond its capacity: whole
// reports that the body ended within it.
func (b payload) decodeInto(dst []byte) (plain []byte, whole bool, err error) {
	if b.coding == "zstd" {
		// DecodeAll keeps its window in dst itself, so nothing is held but dst.
		zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			return nil, false, fmt.Errorf("%w (zstd: %v)", errUndecodable, err)
		}
		defer zr.Close()
		out, err := zr.DecodeAll(b.sent, dst)
		switch {
		case errors.Is(err, zstd.ErrDecoderSizeExceeded):
			return nil, false, nil
		case errors.Is(err, zstd.ErrWindowSizeExceeded):
			return nil, false, errZstdWindow
		case err != nil:
			return nil, false, fmt.Errorf("%w (zstd: %v)", errUndecodable, err)
		}
		return out, true, nil
	}
	rd, err := b.decoder()
	if err != nil {
		return nil, false, err
	}
	buf := dst[:cap(dst)]
	n, err := io.ReadFull(rd, buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return buf[:n], true, nil
	case err != nil:
		return nil, false, fmt.Errorf("%w (%s: %v)", errUndecodable, b.coding, err)
	}
	var probe [1]byte
	switch m, err := rd.Read(probe[:]); {
	case m > 0:
		return nil, false, nil
	case err == io.EOF:
		return buf, true, nil
	case err != nil:
		return nil, false, fmt.Errorf("%w (%s: %v)", errUndecodable, b.coding, err)
	}
	return nil, false, nil
}

// count decodes the body into a scratch buffer to learn its size, failing
// with errDecodedTooLarge as soon as it passes limit.
func (b payload) count(limit int) (int64, error) {
	rd, err := b.decoder()
	if err != nil {
		return 0, err
	}
	if c, ok := rd.(io.Closer); ok {
		defer c.Close()
	}
	scratch := make([]byte, countChunk)
	var n int64
	for {
		m, err := rd.Read(scratch)
		n += int64(m)
		switch {
		case n > int64(limit):
			return 0, errDecodedTooLarge
		case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
			return 0, errZstdWindow
		case err == io.EOF:
			return n, nil
		case err != nil:
			return 0, fmt.Errorf("%w (%s: %v)", errUndecodable, b.coding, err)
		}
	}
}

// decoder is a streaming decoder of the body; a zstd one is an io.Closer.
func (b payload) decoder() (io.Reader, error) {
	switch {
	case b.coding == "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b.sent))
		if err != nil {
			return nil, fmt.Errorf("%w (gzip: %v)", errUndecodable, err)
		}
		return zr, nil
	case b.coding == "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(b.sent), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			return nil, fmt.Errorf("%w (zstd: %v)", errUndecodable, err)
		}
		return zstdCloser{zr}, nil
	case b.rawDeflate:
		return flate.NewReader(bytes.NewReader(b.sent)), nil
	}
	zr, err := zlib.NewReader(bytes.NewReader(b.sent))
	if err != nil {
		return nil, fmt.Errorf("%w (deflate: %v)", errUndecodable, err)
	}
	return zr, nil
}

// zstdCloser makes a streaming zstd decoder an io.Closer (its Close
// returns nothing).
type zstdCloser struct{ *zstd.Decoder }

func (z zstdCloser) Close() error {
	z.Decoder.Close()
	return nil
}

package proxy

import (
	"io"
	"net/http"
)

// firstChunk is the buffer a body of unknown length starts in.
const firstChunk = 64 << 10

// readBody reads the whole request body, charging it to h before it is
// held: into one buffer of its declared length when it has one (a body
// declared larger than maxRequestBytes is refused unread), else into a
// buffer that doubles as it fills, each new buffer charged whole while the
// old one is not yet returned (the old is garbage once copied, and the
// runtime's memory limit lets it be collected before the next body).
func readBody(w http.ResponseWriter, r *http.Request, h *holding) ([]byte, error) {
	if r.ContentLength > maxRequestBytes {
		return nil, &http.MaxBytesError{Limit: maxRequestBytes}
	}
	rd := http.MaxBytesReader(w, r.Body, maxRequestBytes)
	if n := r.ContentLength; n > 0 {
		if err := h.take(n); err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(rd, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	if err := h.take(firstChunk); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, firstChunk)
	for {
		if len(buf) == cap(buf) {
			if err := h.take(int64(2 * cap(buf))); err != nil {
				return nil, err
			}
			grown := make([]byte, len(buf), 2*cap(buf))
			copy(grown, buf)
			buf = grown
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// writeCounter counts the writes an answer reaches the client in.
type writeCounter struct {
	*httptest.ResponseRecorder
	writes int
}

func (w *writeCounter) Write(b []byte) (int, error) {
	w.writes++
	return w.ResponseRecorder.Write(b)
}

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestBurstGoesOutInLargeWrites: an answer the upstream connection already
// holds in full (here a body whose every read fills the buffer) reaches
// the client in writes of copyBufSize, filtered or passed through, not
// in httputil.ReverseProxy's 32 KiB ones: each write to the client costs
// the same syscalls whatever its size.
func TestBurstGoesOutInLargeWrites(t *testing.T) {
	stream := longStream(1 << 20)
	p, _ := newTestProxy(t, "http://upstream.invalid", "")
	p.cfg.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Body != nil {
			_, _ = io.Copy(io.Discard, r.Body)
		}
		return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(stream)),
			ContentLength: -1, Request: r}, nil
	})
	p.plain, p.filtered = p.reverseProxy(nil), p.reverseProxy(p.modifyResponse)
	for _, c := range []struct{ name, method, path, body string }{
		{"filtered", "POST", "/v1/responses", `{"prompt_cache_key":"s","input":[]}`},
		{"passed through", "GET", "/v1/responses/r_1/events", ""},
	} {
		req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer k")
		w := &writeCounter{ResponseRecorder: httptest.NewRecorder()}
		p.ServeHTTP(w, req)
		if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), stream) {
			t.Fatalf("%s: %d, %d bytes of %d", c.name, w.Code, w.Body.Len(), len(stream))
		}
		if want := (len(stream) + copyBufSize - 1) / copyBufSize; w.writes > want {
			t.Fatalf("%s: %d bytes reached the client in %d writes, want %d", c.name, len(stream), w.writes, want)
		}
	}
}

// TestCopyBuffersReused: a buffer handed back is the next one handed out,
// at most idleCopyBufs are kept, and one of another size is not kept.
func TestCopyBuffersReused(t *testing.T) {
	c := newCopyBuffers()
	var bufs [][]byte
	for range idleCopyBufs + 1 {
		bufs = append(bufs, c.Get())
	}
	c.Put(make([]byte, 32<<10))
	for _, b := range bufs {
		c.Put(b)
	}
	if len(c.idle) != idleCopyBufs {
		t.Fatalf("%d buffers kept, want %d", len(c.idle), idleCopyBufs)
	}
	if b := c.Get(); len(b) != copyBufSize || &b[0] != &bufs[0][0] {
		t.Fatal("a kept buffer was not handed out again")
	}
}

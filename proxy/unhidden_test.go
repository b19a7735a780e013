package proxy

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// TestUnhidingGivesTheTransportTheStreamBody: behind a ReverseProxy, whose
// own wrapper of a body has only Read, a pipelined request reaches the
// transport with its streamBody (WriteTo included) and its bytes intact;
// a request without one reaches it as the ReverseProxy sent it.
func TestUnhidingGivesTheTransportTheStreamBody(t *testing.T) {
	var got []byte
	var writerTo bool
	var seen *http.Request
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(&url.URL{Scheme: "http", Host: "upstream.test"}) },
		Transport: unhiding{roundTripFunc(func(r *http.Request) (*http.Response, error) {
			seen = r
			_, writerTo = r.Body.(io.WriterTo)
			var buf bytes.Buffer
			if _, err := io.Copy(&buf, r.Body); err != nil {
				return nil, err
			}
			got = buf.Bytes()
			return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
		})},
	}

	sb := newStreamBody()
	go func() {
		_ = sb.sendAll([][]byte{[]byte(`{"a":`), []byte(`1}`)})
		sb.finish(nil)
	}()
	in := httptest.NewRequest(http.MethodPost, "/v1/responses", nil)
	in.Body, in.ContentLength = sb, -1
	rp.ServeHTTP(httptest.NewRecorder(), withStreamBody(in, sb))
	if !writerTo || string(got) != `{"a":1}` {
		t.Fatalf("the transport read %q (WriterTo %v); want the stream body's bytes through its WriteTo", got, writerTo)
	}
	if _, ok := seen.Body.(transportBody); !ok {
		t.Fatalf("the transport's body is a %T, not the stream body", seen.Body)
	}
	if sb.isClosed() {
		t.Fatal("the transport's Close ended the stream body: only the pipeline may")
	}

	plain := httptest.NewRequest(http.MethodPost, "/v1/responses", bytes.NewReader([]byte("plain")))
	rp.ServeHTTP(httptest.NewRecorder(), plain)
	if _, ok := seen.Body.(transportBody); ok || string(got) != "plain" {
		t.Fatalf("a request without a stream body reached the transport with %T, %q", seen.Body, got)
	}
}

// TestStreamBodyRefusesReadsOnceClosed: once the pipeline has closed the
// body, a transport still reading it gets errRequestDone and none of the
// slices left, through Read or WriteTo.
func TestStreamBodyRefusesReadsOnceClosed(t *testing.T) {
	for _, via := range []string{"Read", "WriteTo"} {
		sb := newStreamBody()
		go func() { _ = sb.sendAll([][]byte{[]byte("ab"), []byte("cd")}) }()
		p := make([]byte, 1)
		if n, err := sb.Read(p); n != 1 || err != nil {
			t.Fatalf("first Read = %d, %v", n, err)
		}
		_ = sb.Close()
		var err error
		var out bytes.Buffer
		if via == "Read" {
			_, err = sb.Read(p)
		} else {
			_, err = sb.WriteTo(&out)
		}
		if !errors.Is(err, errRequestDone) || out.Len() > 0 {
			t.Fatalf("%s after Close = %q, %v; want nothing and errRequestDone", via, out.Bytes(), err)
		}
	}
}

package proxy

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestPacedBodyEndHolds: a paced body that has ended answers every later
// Read with io.EOF, though the server closed the request body when the
// answer's header went out. The transport reads once more after a body's
// last byte, and when a fast upstream's answer is already on its way to
// the client by then, that read failing ("invalid Read on closed Body")
// made the transport drop the upstream connection under the answer.
func TestPacedBodyEndHolds(t *testing.T) {
	type result struct {
		body       string
		first      error
		late       error
		lateN      int
		serverSide error
	}
	got := make(chan result, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := &pacedBody{body: r.Body, rc: http.NewResponseController(w), start: time.Now(), grace: time.Minute, rate: 1024}
		var res result
		data, err := io.ReadAll(b)
		res.body, res.first = string(data), err
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush() // the server closes r.Body as the header goes out
		_, res.serverSide = r.Body.Read(make([]byte, 8))
		res.lateN, res.late = b.Read(make([]byte, 8))
		got <- res
	}))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"input":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	res := <-got
	if res.body != `{"input":[]}` || res.first != nil {
		t.Fatalf("the body read %q, %v", res.body, res.first)
	}
	if !errors.Is(res.serverSide, http.ErrBodyReadAfterClose) {
		t.Fatalf("the server's body after the header went out: %v, want it closed (the condition this test is about)", res.serverSide)
	}
	if res.lateN != 0 || res.late != io.EOF {
		t.Fatalf("a read after the end: %d, %v; want 0, io.EOF", res.lateN, res.late)
	}
}

// TestPacedBodyFailureHolds: a body that failed answers every later Read
// with its failure, also when the connection takes no deadline (the body
// is then read unpaced).
func TestPacedBodyFailureHolds(t *testing.T) {
	w := httptest.NewRecorder() // a ResponseController on it takes no deadline
	broken := io.NopCloser(io.MultiReader(strings.NewReader("{"), iotest.ErrReader(io.ErrUnexpectedEOF)))
	b := &pacedBody{body: broken, rc: http.NewResponseController(w), start: time.Now(), grace: time.Minute, rate: 1024}
	data, err := io.ReadAll(b)
	if string(data) != "{" || err != io.ErrUnexpectedEOF {
		t.Fatalf("read %q, %v", data, err)
	}
	for range 2 {
		if n, err := b.Read(make([]byte, 8)); n != 0 || err != io.ErrUnexpectedEOF {
			t.Fatalf("a read after the failure: %d, %v", n, err)
		}
	}
	if !b.unpaced {
		t.Fatal("the body was paced on a connection that takes no deadline")
	}
}

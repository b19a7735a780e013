package proxy_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is an upstream double that records the path of every request
// it gets, reads its body and answers 200 with a short event stream, or,
// on …/slow, a stream whose second event comes after pause.
type recorder struct {
	srv   *httptest.Server
	mu    sync.Mutex
	paths []string
	pause time.Duration
}

func startRecorder(t *testing.T) *recorder {
	t.Helper()
	rec := &recorder{pause: 1500 * time.Millisecond}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.paths = append(rec.paths, r.URL.Path)
		rec.mu.Unlock()
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: one\n\n")
		if strings.HasSuffix(r.URL.Path, "/slow") {
			http.NewResponseController(w).Flush()
			time.Sleep(rec.pause)
		}
		_, _ = io.WriteString(w, "data: two\n\n")
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (rec *recorder) seen() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.paths...)
}

// dialProxy opens a raw TCP connection to the proxy.
func dialProxy(t *testing.T, px *running) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(px.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestBothFramings (R5): a request carrying both Content-Length and
// Transfer-Encoding: chunked is answered and its connection closed, so a
// request smuggled after its chunked body never reaches the upstream —
// on a plain path and on a filtered one.
func TestBothFramings(t *testing.T) {
	t.Parallel()
	rec := startRecorder(t)
	px := startProxy(t, rec.srv.URL, "")
	for _, first := range []struct{ path, body string }{
		{"/v1/models", "0\r\n\r\n"},
		{"/v1/responses", "2a\r\n" + `{"prompt_cache_key":"smuggle","input":[]}` + " \r\n0\r\n\r\n"},
	} {
		conn := dialProxy(t, px)
		smuggled := "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
		req := "POST " + first.path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + tokenA + "\r\n" +
			"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + first.body + smuggled
		if _, err := io.WriteString(conn, req); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", first.path, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if !resp.Close {
			t.Errorf("%s: the answer (%d) does not close the connection", first.path, resp.StatusCode)
		}
		if rest, err := io.ReadAll(br); err != nil || len(rest) > 0 {
			t.Errorf("%s: after the answer the connection gave %q, %v; want it closed", first.path, rest, err)
		}
	}
	for _, p := range rec.seen() {
		if p == "/smuggled" {
			t.Fatalf("the smuggled request reached the upstream: %v", rec.seen())
		}
	}
	if got := rec.seen(); len(got) != 2 {
		t.Fatalf("the upstream saw %v, want the two framed requests", got)
	}
}

// TestSlowBodiesAndIdleConnections (R4): a body that trickles in slower
// than --body-min-rate past --body-grace is answered 408
// REQUEST_BODY_TOO_SLOW and its connection closed, on a filtered and a
// plain path; an idle keep-alive connection is closed after
// --idle-timeout; an answer that streams for longer than the grace, after
// its body arrived in time, is not cut.
func TestSlowBodiesAndIdleConnections(t *testing.T) {
	t.Parallel()
	rec := startRecorder(t)
	px := startProxy(t, rec.srv.URL, "", "--body-grace", "1s", "--body-min-rate", "1KiB", "--idle-timeout", "1s")
	for _, path := range []string{"/v1/responses", "/v1/files"} {
		conn := dialProxy(t, px)
		start := time.Now()
		head := "POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + tokenA + "\r\nContent-Length: 100000\r\n\r\n{"
		if _, err := io.WriteString(conn, head); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { // trickles one byte every 100 ms until the proxy answers; owned by this loop
			defer close(done)
			for time.Since(start) < 20*time.Second {
				time.Sleep(100 * time.Millisecond)
				if _, err := io.WriteString(conn, " "); err != nil {
					return
				}
			}
		}()
		_ = conn.SetReadDeadline(time.Now().Add(15 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: a trickling body got no answer: %v\n%s", path, err, px.Log())
		}
		b, _ := io.ReadAll(resp.Body)
		took := time.Since(start)
		conn.Close()
		<-done
		if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "REQUEST_BODY_TOO_SLOW") || !resp.Close || took > 6*time.Second {
			t.Fatalf("%s: a trickling body: %d %s (close %v) after %s", path, resp.StatusCode, b, resp.Close, took)
		}
	}

	// An idle keep-alive connection is closed.
	conn := dialProxy(t, px)
	br := bufio.NewReader(conn)
	if _, err := io.WriteString(conn, "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	idle := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF || time.Since(idle) > 5*time.Second {
		t.Fatalf("an idle connection: %v after %s, want it closed after about 1s", err, time.Since(idle))
	}

	// A body sent in time, then an answer that streams for longer than the
	// grace: the whole answer arrives.
	resp, err = http.Post(px.URL+"/v1/responses/slow", "application/json", strings.NewReader(`{"input":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || !strings.Contains(string(b), "two") {
		t.Fatalf("a long answer after a prompt body: %d %q %v\n%s", resp.StatusCode, b, err, px.Log())
	}
}

// TestLimitFlags: a limit that is not a positive size or duration is a
// usage error naming the flag.
func TestLimitFlags(t *testing.T) {
	t.Parallel()
	for _, bad := range [][]string{{"--body-budget", "lots"}, {"--body-min-rate", "0"}, {"--idle-timeout", "-1s"}} {
		args := append([]string{"proxy", "--upstream", "http://127.0.0.1:9", "--data-dir", t.TempDir()}, bad...)
		if code, out := continuity(t, args...); code != 2 || !strings.Contains(out, bad[0]) {
			t.Errorf("%v: %d %s", bad, code, out)
		}
	}
}

package proxy

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/sqlstore"
)

// newTestProxy serves a Proxy in front of upstream on loopback.
func newTestProxy(t *testing.T, upstream string, rule Rule) (*Proxy, *httptest.Server) {
	t.Helper()
	store, err := settings.OpenFileStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pol := settings.NewPolicy(store)
	if err := pol.Activate(context.Background()); err != nil {
		t.Fatal(err)
	}
	db, err := sqlstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	up, _ := url.Parse(upstream)
	// Sessions first seen in this test are born after the activation.
	clock := time.Now().Add(time.Second)
	p, err := New(Config{Upstream: up, Policy: pol, DB: db, Rule: rule, Secret: "0123456789abcdef0123",
		Now: func() time.Time { return clock }, PolicyCommand: "continuity policy --data-dir /d", PageURL: "http://127.0.0.1:1/"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv
}

// seen is what an upstream received.
type seen struct {
	method, path, query, body string
	header                    http.Header
}

// echoUpstream records each request and answers it with handler.
func echoUpstream(t *testing.T, got chan<- seen, handler func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.URL.Path, r.URL.RawQuery, string(b), r.Header.Clone()}
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestPassThroughUntouched: other methods and paths, and …/responses
// requests without a session key, reach the upstream exactly as sent, and
// its answer comes back as it was.
func TestPassThroughUntouched(t *testing.T) {
	got := make(chan seen, 4)
	up := echoUpstream(t, got, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Up", "1")
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte("as the upstream said"))
	})
	_, px := newTestProxy(t, up.URL, "")
	odd := "{ \"model\" : \"m\",\n \"input\":[ {\"type\":\"reasoning\",\"id\":\"rs_1\",\"encrypted_content\":\"x\"} ] }"
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/models?x=1", ""},
		{"DELETE", "/v1/responses/resp_1", ""},
		{"POST", "/v1/responses", odd},
		{"PUT", "/v1/responses", odd},
	} {
		req, _ := http.NewRequest(c.method, px.URL+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer k")
		req.Header.Set("X-Request-Id", "s-1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		s := <-got
		u, _ := url.Parse(c.path)
		if s.method != c.method || s.path != u.Path || s.query != u.RawQuery || s.body != c.body ||
			s.header.Get("X-Request-Id") != "s-1" || s.header.Get("Authorization") != "Bearer k" {
			t.Fatalf("%s %s reached the upstream as %+v", c.method, c.path, s)
		}
		if resp.StatusCode != http.StatusTeapot || string(b) != "as the upstream said" || resp.Header.Get("X-Up") != "1" {
			t.Fatalf("%s %s answered %d %q", c.method, c.path, resp.StatusCode, b)
		}
	}
}

// TestStreamIsNotBuffered: the client reads the first event while the
// upstream is still holding the rest back.
func TestStreamIsNotBuffered(t *testing.T) {
	release := make(chan struct{})
	got := make(chan seen, 1)
	up := echoUpstream(t, got, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("event: response.created\ndata: {\"type\":\"response.created\"}\n\n"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Write([]byte("event: response.completed\ndata: {\"type\":\"response.completed\"}\n\n"))
	})
	_, px := newTestProxy(t, up.URL, "")
	req, _ := http.NewRequest("POST", px.URL+"/v1/responses", strings.NewReader(`{"prompt_cache_key":"s","input":[]}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || line != "event: response.created\n" {
		t.Fatalf("first line %q %v", line, err)
	}
	close(release)
	rest, _ := io.ReadAll(br)
	if !strings.Contains(string(rest), "response.completed") {
		t.Fatalf("rest %q", rest)
	}
}

// TestClientGoneCancelsUpstream: when the client hangs up, the upstream
// request's context ends.
func TestClientGoneCancelsUpstream(t *testing.T) {
	cancelled := make(chan struct{})
	got := make(chan seen, 1)
	up := echoUpstream(t, got, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(cancelled)
	})
	_, px := newTestProxy(t, up.URL, "")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", px.URL+"/v1/responses", strings.NewReader(`{"prompt_cache_key":"s","input":[]}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request outlived the client")
	}
}

// TestUpstreamDown: an unreachable upstream is a 502 with a named reason.
func TestUpstreamDown(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	_, px := newTestProxy(t, dead.URL, "")
	req, _ := http.NewRequest("POST", px.URL+"/v1/responses", strings.NewReader(`{"prompt_cache_key":"s","input":[]}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(b), `"code":"UPSTREAM_UNREACHABLE"`) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

// TestRejectionHint: a replay rejection while the session's policy is off
// passes through with the hint naming the command and the page appended to
// its message (every other byte kept, the length fixed) and in a header;
// a rate limit gets none; with the policy on there is no hint but the
// rejection is recorded.
func TestRejectionHint(t *testing.T) {
	rejection := `{"error":{"message":"The encrypted content gAAA…Rg== could not be verified. Reason: Encrypted content organization_id did not match the target organization.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`
	status, body := 400, rejection
	got := make(chan seen, 8)
	up := echoUpstream(t, got, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	})
	p, px := newTestProxy(t, up.URL, "")
	send := func(session string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", px.URL+"/v1/responses", strings.NewReader(`{"prompt_cache_key":"`+session+`","input":[]}`))
		req.Header.Set("Authorization", "Bearer k")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		<-got
		return resp, string(b)
	}
	send("off-session") // seen once, so it can be switched off
	if err := SetSession(context.Background(), p.cfg.Policy, "off-session", 0, new(false)); err != nil {
		t.Fatal(err)
	}
	resp, b := send("off-session")
	hint := resp.Header.Get(HintHeader)
	const want = "visible-history continuation is off for this session; turn it on with: continuity policy --data-dir /d off-session on (or on the status page http://127.0.0.1:1/; continuity page prints its address with its key)"
	withIt := strings.Replace(rejection, `organization.",`, `organization. — `+want+`",`, 1)
	if b != withIt || resp.StatusCode != 400 || hint != want || resp.ContentLength != int64(len(withIt)) {
		t.Fatalf("%d %q (length %d)\n%s", resp.StatusCode, hint, resp.ContentLength, b)
	}
	status, body = 429, `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`
	if resp, _ := send("off-session"); resp.Header.Get(HintHeader) != "" {
		t.Fatal("a rate limit got the hint")
	}
	status, body = 400, rejection
	if resp, _ := send("on-session"); resp.Header.Get(HintHeader) != "" {
		t.Fatal("a session with the policy on got the hint")
	}
	var off, on []RejectionView
	for _, s := range p.sessions.views() {
		if s.ID == "off-session" {
			off = s.Rejections
		} else {
			on = s.Rejections
		}
	}
	if len(off) != 2 || off[0].Hinted || !off[1].Hinted || off[1].Kind != "organization-mismatch" || off[1].Policy != "off" || len(on) != 1 || on[0].Hinted {
		t.Fatalf("recorded off %+v on %+v", off, on)
	}
}

// TestUpstreamTimeout: an upstream that never answers within the header
// timeout is a 504 UPSTREAM_TIMEOUT (a gateway timeout, not a bad
// gateway), and its request is cancelled.
func TestUpstreamTimeout(t *testing.T) {
	gone := make(chan struct{})
	got := make(chan seen, 1)
	up := echoUpstream(t, got, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		close(gone)
	})
	p, px := newTestProxy(t, up.URL, "")
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = 50 * time.Millisecond
	p.cfg.Transport = tr
	p.plain, p.filtered = p.reverseProxy(nil), p.reverseProxy(p.modifyResponse)
	req, _ := http.NewRequest("POST", px.URL+"/v1/responses", strings.NewReader(`{"prompt_cache_key":"s","input":[]}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(b), `"code":"UPSTREAM_TIMEOUT"`) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the timed-out upstream request was not cancelled")
	}
}

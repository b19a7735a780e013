package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/sqlstore"
)

// TestGeminiLedgerAcrossRestart: a signature an answer issued to key A
// through one proxy is kept on A's next request through a second proxy on
// the same data directory (a restart), and removed on B's; a payload the
// filter cannot read is answered by name and never sent.
func TestGeminiLedgerAcrossRestart(t *testing.T) {
	got := make(chan seen, 4)
	up := echoUpstream(t, got, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"a\",\"thoughtSignature\":\"T1JJR0lO\"}]}}]}\r\n\r\n")
	})
	store, err := settings.OpenFileStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pol := settings.NewPolicy(store)
	if err := pol.Activate(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	u, _ := url.Parse(up.URL)
	later := time.Now().Add(time.Second)
	start := func() (*httptest.Server, func()) {
		db, err := sqlstore.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(Config{Upstream: u, Policy: pol, DB: db, Secret: "0123456789abcdef0123", Now: func() time.Time { return later }})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(p)
		return srv, func() { srv.Close(); db.Close() }
	}
	send := func(srv *httptest.Server, key, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", strings.NewReader(body))
		req.Header.Set("X-Goog-Api-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return resp.StatusCode, string(b)
		}
		return 200, (<-got).body
	}
	first, stop := start()
	send(first, "key-A", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	stop()
	second, stop := start()
	defer stop()
	next := `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"a","thoughtSignature":"T1JJR0lO"}]},{"role":"user","parts":[{"text":"more"}]}]}`
	if _, sent := send(second, "key-A", next); sent != next {
		t.Fatalf("A's own signature did not survive the restart: %s", sent)
	}
	if _, sent := send(second, "key-B", next); strings.Contains(sent, "thoughtSignature") {
		t.Fatalf("A's signature reached B: %s", sent)
	}
	status, body := send(second, "key-A", `{"contents":[{"role":"model","parts":[{"thoughtSignature":"a","thoughtSignature":"b"}]}]}`)
	if status != 400 || !strings.Contains(body, diag.InvalidPayload) || !strings.Contains(body, "repeats its thoughtSignature") || len(got) != 0 {
		t.Fatalf("a repeated signature: %d %s", status, body)
	}
}

package proxy

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestUndecodableBodyPassesWithItsSession: a body in a coding the proxy
// cannot open (br) reaches the upstream as the client sent it, and the
// warning names the session its headers give and the coding — never the
// body's bytes or the credential.
func TestUndecodableBodyPassesWithItsSession(t *testing.T) {
	got := make(chan seen, 1)
	up := echoUpstream(t, got, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	p, px := newTestProxy(t, up.URL, "")
	core, logs := observer.New(zap.WarnLevel)
	p.cfg.Log = zap.New(core)
	body := "\x8b\x02\x80secret-ciphertext-bytes\x03" // opaque to the proxy
	req, _ := http.NewRequest(http.MethodPost, px.URL+"/v1/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer key-a")
	req.Header.Set("Content-Encoding", "br")
	req.Header.Set("Session-Id", "thread-7")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if s := <-got; s.body != body || s.header.Get("Content-Encoding") != "br" {
		t.Fatalf("the upstream received %q (%s)", s.body, s.header.Get("Content-Encoding"))
	}
	entries := logs.FilterMessage("compressed request body passed through unfiltered").All()
	if len(entries) != 1 {
		t.Fatalf("warnings: %v", logs.All())
	}
	f := entries[0].ContextMap()
	if f["session"] != "thread-7" || f["encoding"] != "br" {
		t.Fatalf("the warning says %v", f)
	}
	for _, e := range logs.All() {
		for _, v := range e.ContextMap() {
			if s, ok := v.(string); ok && (strings.Contains(s, "secret-ciphertext") || strings.Contains(s, "key-a")) {
				t.Fatalf("a log line carries content: %v", e.ContextMap())
			}
		}
	}
}

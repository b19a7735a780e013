package proxy

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/filter"
)

// gzipUpstream answers every request with body, gzip-compressed when the
// request accepts gzip, as api.openai.com does for a JSON answer.
func gzipUpstream(t *testing.T, got chan<- seen, status *int, body *string) string {
	return echoUpstream(t, got, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.WriteHeader(*status)
			io.WriteString(w, *body)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(*status)
		zw := gzip.NewWriter(w)
		io.WriteString(zw, *body)
		zw.Close()
	}).URL
}

// TestCompressedAnswersAreRead: clients on Node's fetch (opencode, pi)
// accept gzip, deflate and br, and the upstream compresses its answers.
// The proxy must still read what an answer issues and classify a replay
// rejection, and the client still gets the upstream's answer.
func TestCompressedAnswersAreRead(t *testing.T) {
	status := http.StatusOK
	issued := `{"id":"resp_1","output":[{"type":"reasoning","id":"rs_1","encrypted_content":"gAAAAissued-to-k","summary":[]}]}`
	body := issued
	got := make(chan seen, 8)
	p, px := newTestProxy(t, gzipUpstream(t, got, &status, &body), "")
	send := func(session string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", px.URL+"/v1/responses", strings.NewReader(`{"prompt_cache_key":"`+session+`","input":[]}`))
		req.Header.Set("Authorization", "Bearer k")
		req.Header.Set("Accept-Encoding", "gzip, deflate, br")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r := io.Reader(resp.Body)
		if resp.Header.Get("Content-Encoding") == "gzip" {
			if r, err = gzip.NewReader(resp.Body); err != nil {
				t.Fatal(err)
			}
		}
		b, err := io.ReadAll(r)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		<-got
		return resp, string(b)
	}
	if _, b := send("s"); b != issued {
		t.Fatalf("the client got %s", b)
	}
	acct, _ := accountOf(http.Header{"Authorization": {"Bearer k"}})
	acct = p.root.issuer(acct) // the issuer: upstream and account
	issuer, known, err := p.issuers.issuer(context.Background(), filter.Fingerprint("gAAAAissued-to-k"))
	if err != nil || !known || issuer != acct {
		t.Fatalf("the compressed answer's reasoning: issuer known %v, %v", known, err)
	}

	if err := SetSession(context.Background(), p.cfg.Policy, "s", 0, new(false)); err != nil {
		t.Fatal(err)
	}
	status = http.StatusBadRequest
	body = `{"error":{"message":"The encrypted content gAAA…Rg== could not be verified. Reason: Encrypted content organization_id did not match the target organization.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`
	resp, b := send("s")
	hinted := strings.Replace(body, `organization.",`, `organization. — `+resp.Header.Get(HintHeader)+`",`, 1)
	if b != hinted || resp.StatusCode != http.StatusBadRequest || resp.Header.Get(HintHeader) == "" {
		t.Fatalf("a compressed replay rejection: %d, hint %q\n%s", resp.StatusCode, resp.Header.Get(HintHeader), b)
	}
}

package proxy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/filter/gemini"
)

// TestGeminiPath: every spelling of the two model calls an upstream may
// route is filtered; other Gemini calls pass.
func TestGeminiPath(t *testing.T) {
	for path, want := range map[string]bool{
		"/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent": true,
		"/v1beta/models/gemini-2.5-flash:generateContent":             true,
		"/gemini/v1/models/m:GENERATECONTENT":                         true,
		"/v1beta/models/m:streamGenerateContent/":                     true,
		"/v1beta/models/m:countTokens":                                false,
		"/v1beta/models/m":                                            false,
		"/v1beta/models/:generateContent":                             false,
		"/v1beta/models/a/b:generateContent":                          false,
		"/v1/responses":                                               false,
	} {
		if got := geminiPath(path); got != want {
			t.Errorf("geminiPath(%q) = %v", path, got)
		}
	}
}

// TestGeminiAccount: the key's three places name one account; another key
// or another upstream is another issuer; no key, no account.
func TestGeminiAccount(t *testing.T) {
	req := func(set func(*http.Request)) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/v1beta/models/m:generateContent?alt=sse", nil)
		set(r)
		return r
	}
	header := req(func(r *http.Request) { r.Header.Set("X-Goog-Api-Key", "k1") })
	query := req(func(r *http.Request) { r.URL.RawQuery = "key=k1" })
	bearer := req(func(r *http.Request) { r.Header.Set("Authorization", "Bearer k1") })
	other := req(func(r *http.Request) { r.Header.Set("X-Goog-Api-Key", "k2") })
	a, ok := geminiAccountOf(header, "https://g")
	if !ok {
		t.Fatal("no account")
	}
	for _, r := range []*http.Request{query, bearer} {
		if b, _ := geminiAccountOf(r, "https://g"); b != a {
			t.Error("the same key in another place is another account")
		}
	}
	if b, _ := geminiAccountOf(other, "https://g"); b == a {
		t.Error("another key is the same account")
	}
	if b, _ := geminiAccountOf(header, "https://other"); b == a {
		t.Error("another upstream is the same issuer")
	}
	if _, ok := geminiAccountOf(req(func(*http.Request) {}), "https://g"); ok {
		t.Error("an account without a key")
	}
}

// TestGeminiTap: the answer passes byte for byte, read in any pieces and
// in any line ending, and every signature it issues is recorded once —
// streamed, as a JSON array, or as one JSON object.
func TestGeminiTap(t *testing.T) {
	ev := func(sig string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[{"text":"x","thoughtSignature":"` + sig + `"}]}}]}`
	}
	want := [][32]byte{gemini.Fingerprint([]byte("S1")), gemini.Fingerprint([]byte("S2"))}
	cases := map[string]bool{"[" + ev("S1") + ",\r\n" + ev("S2") + "]": false, `{"candidates":[{"content":{"parts":[{"thoughtSignature":"S1"},{"functionCall":{},"thoughtSignature":"S2"}]}}]}`: false}
	for _, nl := range []string{"\n", "\r\n", "\r"} {
		cases["data: "+ev("S1")+nl+nl+": keep-alive"+nl+nl+"data: "+ev("S2")+nl+nl] = true
	}
	cases["data: "+ev("S1")+"\n\ndata: "+ev("S2")] = true // no blank line at the end
	for body, stream := range cases {
		for _, n := range []int{1, 7, 4096} {
			var got, persisted [][32]byte
			tp := newGeminiTap(io.NopCloser(chunked{strings.NewReader(body), n}), stream,
				func(fp [32]byte) { got = append(got, fp) }, func(fps [][32]byte) { persisted = fps })
			out, err := io.ReadAll(tp)
			if err != nil || !bytes.Equal(out, []byte(body)) {
				t.Fatalf("%q in %d-byte reads: changed or failed (%v)", body, n, err)
			}
			tp.Close()
			if len(got) != 2 || got[0] != want[0] || got[1] != want[1] || len(persisted) != 2 {
				t.Fatalf("%q in %d-byte reads: recorded %d, persisted %d", body, n, len(got), len(persisted))
			}
		}
	}
}

// TestGeminiRejectionHint: Gemini's "Corrupted thought signature." answered
// to a session whose policy is off passes with the hint naming the derived
// session, in a header and appended to its message, every other byte kept;
// with the policy on it is recorded, unhinted, and the page's record of it
// carries no text.
func TestGeminiRejectionHint(t *testing.T) {
	envelope := "{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"Corrupted thought signature.\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n"
	got := make(chan seen, 8)
	up := echoUpstream(t, got, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(400)
		_, _ = w.Write([]byte(envelope))
	})
	p, px := newTestProxy(t, up.URL, "")
	body := `{"contents":[{"role":"user","parts":[{"text":"first"}]},{"role":"model","parts":[{"text":"a","thoughtSignature":"Zm9yZWlnbg=="}]},{"role":"user","parts":[{"text":"again"}]}]}`
	d, _ := gemini.Scan([]byte(body))
	session, _ := d.Key()
	send := func() (*http.Response, string, string) {
		req, _ := http.NewRequest(http.MethodPost, px.URL+"/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse", strings.NewReader(body))
		req.Header.Set("X-Goog-Api-Key", "AIza-secret-key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b), (<-got).body
	}
	resp, b, sent := send()
	if resp.Header.Get(HintHeader) != "" || b != envelope || strings.Contains(sent, "thoughtSignature") {
		t.Fatalf("policy on: hint %q, sent %s", resp.Header.Get(HintHeader), sent)
	}
	if err := SetSession(context.Background(), p.cfg.Policy, session, 0, new(false)); err != nil {
		t.Fatal(err)
	}
	resp, b, sent = send()
	want := "visible-history continuation is off for this session; turn it on with: continuity policy --data-dir /d " + session + " on (or on the status page http://127.0.0.1:1/; continuity page prints its address with its key)"
	// The hint is appended to the envelope's message, every other byte kept.
	hinted := strings.Replace(envelope, "signature.\"", "signature. — "+want+"\"", 1)
	if hint := resp.Header.Get(HintHeader); hint != want || b != hinted || sent != body {
		t.Fatalf("policy off: hint %q, body %q, sent %s", hint, b, sent)
	}
	for _, s := range p.sessions.views() {
		if s.ID == session && (len(s.Rejections) != 2 || s.Rejections[0].Kind != "not-verified" || !s.Rejections[1].Hinted) {
			t.Fatalf("rejections %+v", s.Rejections)
		}
	}
}

// TestGeminiTapOversized: an event past maxEventBytes passes through and
// none of it is recorded, not even a signature on a later line of the same
// event; the next event is read as usual.
func TestGeminiTapOversized(t *testing.T) {
	ev := func(sig string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[{"text":"x","thoughtSignature":"` + sig + `"}]}}]}`
	}
	body := "data: {\"pad\":\"" + strings.Repeat("x", maxEventBytes) + "\"}\ndata: " + ev("S1") + "\n\ndata: " + ev("S2") + "\n\n"
	var got [][32]byte
	tp := newGeminiTap(io.NopCloser(chunked{strings.NewReader(body), 1 << 16}), true,
		func(fp [32]byte) { got = append(got, fp) }, func([][32]byte) {})
	out, err := io.ReadAll(tp)
	if err != nil || len(out) != len(body) || string(out) != body {
		t.Fatalf("changed or failed (%v)", err)
	}
	if len(got) != 1 || got[0] != gemini.Fingerprint([]byte("S2")) {
		t.Fatalf("recorded %d signatures, want S2 alone", len(got))
	}
}

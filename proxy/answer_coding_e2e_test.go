package proxy_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCompressedAnswerProvenance runs the binary in front of an upstream
// that gzips its JSON answers for a client accepting gzip, as
// api.openai.com does and Node's fetch (opencode, pi) asks. The session is
// used by A, then B: the reasoning an answer issued to B is still known as
// B's, so B's next request keeps it (an item of unknown issuer would be
// omitted, the session having seen two accounts), and A's drops it.
func TestCompressedAnswerProvenance(t *testing.T) {
	t.Parallel()
	bodies := make(chan string, 4)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- string(b)
		token := r.Header.Get("Authorization")
		answer := `{"id":"resp_1","object":"response","status":"completed","output":[{"type":"reasoning","id":"rs_1","encrypted_content":"` + issuedTo(token[len(token)-4:]) + `","summary":[]}]}`
		w.Header().Set("Content-Type", "application/json")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			io.WriteString(w, answer)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, answer)
		zw.Close()
	}))
	t.Cleanup(up.Close)
	px := startProxy(t, up.URL, "")
	send := func(token, input string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, px.URL+"/v1/responses",
			strings.NewReader(`{"model":"gpt-5.4","prompt_cache_key":"s-gzip","input":[`+input+`]}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept-Encoding", "gzip, deflate, br")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		r := io.Reader(resp.Body)
		if resp.Header.Get("Content-Encoding") == "gzip" {
			if r, err = gzip.NewReader(resp.Body); err != nil {
				t.Fatal(err)
			}
		}
		b, err := io.ReadAll(r)
		if err != nil || resp.StatusCode != 200 || !strings.Contains(string(b), issuedTo(token[len(token)-4:])) {
			t.Fatalf("%d %v %s", resp.StatusCode, err, b)
		}
		return <-bodies
	}
	user := `{"role":"user","content":"hi"}`
	send(tokenA, user)
	send(tokenB, user)
	history := user + `,{"type":"reasoning","id":"rs_1","encrypted_content":"` + issuedTo(tokenB[len(tokenB)-4:]) + `","summary":[]},` + user
	if got := send(tokenB, history); !strings.Contains(got, issuedTo(tokenB[len(tokenB)-4:])) {
		t.Fatalf("B's own reasoning was omitted from B's request: %s\n%s", got, px.Log())
	}
	if got := send(tokenA, history); strings.Contains(got, issuedTo(tokenB[len(tokenB)-4:])) {
		t.Fatalf("B's reasoning reached the upstream on A's request: %s\n%s", got, px.Log())
	}
}

// issuedTo is the ciphertext the upstream double issues to the account
// whose token ends in tail.
func issuedTo(tail string) string { return "gAAAA-issued-to-" + tail }

package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/filter/gemini"
)

// geminiHistory is a Gemini request body of at least size bytes: turns of
// a signed call, its response and a signed answer, each followed by the
// user's next message, every signature of an issuer no proxy saw.
func geminiHistory(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"contents":[{"role":"user","parts":[{"text":"<session_context>pipelined</session_context>"},{"text":"begin"}]}`)
	output := strings.Repeat("tool output line\\n", 1000)
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(&b, `,{"role":"model","parts":[{"functionCall":{"name":"read","args":{"n":%d}},"thoughtSignature":"c2lnLWNhbGwt%d"}]}`, n, n)
		fmt.Fprintf(&b, `,{"role":"user","parts":[{"functionResponse":{"name":"read","response":{"output":"%s"}}}]}`, output)
		fmt.Fprintf(&b, `,{"role":"model","parts":[{"text":"read %d","thoughtSignature":"c2lnLXRleHQt%d"},{"text":"hm","thought":true,"thoughtSignature":"c2lnLXRoLQ%d"}]},{"role":"user","parts":[{"text":"next %d"}]}`, n, n, n, n)
	}
	b.WriteString(`,{"role":"model","parts":[{"functionCall":{"name":"read","args":{}},"thoughtSignature":"c2lnLWxhc3Q"}]}],"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`)
	return []byte(b.String())
}

// unkept is the whole-body filter's output for body with no signature
// kept, as the proxy must send it for an issuer no proxy saw.
func unkept(t *testing.T, body []byte) []byte {
	t.Helper()
	d, err := gemini.Scan(body)
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Select(context.Background(), func(gemini.Candidate) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Join(res.Pieces, nil)
}

const geminiPipePath = "/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse"

// TestGeminiPipelineForwardsWhileArriving: a large body of declared length
// reaches the upstream while the client is still sending it — the client
// sends its last third only once the upstream has read a third — and what
// the upstream gets in all is the whole-body filter's output.
func TestGeminiPipelineForwardsWhileArriving(t *testing.T) {
	body := geminiHistory(3 << 20)
	want := unkept(t, body)
	early := make(chan struct{})
	got := make(chan received, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		_, err := io.CopyN(&b, r.Body, int64(len(body)/3))
		close(early)
		if err == nil {
			_, err = b.ReadFrom(r.Body)
		}
		got <- received{b.Bytes(), err, r.ContentLength < 0}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"candidates\":[]}\r\n\r\n")
	}))
	t.Cleanup(up.Close)
	_, px := newTestProxy(t, up.URL, RuleProvenance)
	pr, pw := io.Pipe()
	go func() {
		split := 2 * len(body) / 3
		if _, err := pw.Write(body[:split]); err != nil {
			return
		}
		select {
		case <-early:
		case <-time.After(20 * time.Second):
			pw.CloseWithError(errors.New("the upstream got nothing while the body arrived"))
			return
		}
		_, _ = pw.Write(body[split:])
		pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPost, px.URL+geminiPipePath, pr)
	req.ContentLength = int64(len(body))
	req.Header.Set("X-Goog-Api-Key", "key-A")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	r := <-got
	if r.err != nil || !r.chunked {
		t.Fatalf("the upstream read %v, chunked %v", r.err, r.chunked)
	}
	if !bytes.Equal(r.body, want) {
		t.Fatalf("the upstream got %d bytes, the whole-body filter gives %d (first difference at %d)",
			len(r.body), len(want), firstDiff(string(r.body), string(want)))
	}
}

// TestGeminiPipelineLateFault: a large body that turns out malformed or
// over a bound only near its end, after much of it was forwarded, is
// answered exactly as the whole-body path answers it (status, code,
// message), and the upstream never receives it complete; nor does it a
// body the client stops sending halfway.
func TestGeminiPipelineLateFault(t *testing.T) {
	got := make(chan received, 4)
	up := recordingUpstream(t, got)
	_, px := newTestProxy(t, up.URL, RuleProvenance)
	body := geminiHistory(3 << 20)
	tail := bytes.LastIndex(body, []byte(`{"functionCall"`))
	var many strings.Builder
	for n := range gemini.MaxSignatures + 1 {
		fmt.Fprintf(&many, `{"text":"s","thoughtSignature":"c2ln%d"},`, n)
	}
	cases := []struct {
		name, code string
		body       []byte
	}{
		{"malformed", diag.InvalidPayload, splice(body, tail+len(`{"functionCall":{"name":"`), "\x01")},
		{"repeated member", diag.InvalidPayload, splice(body, tail+1, `"thought":true,"thought":false,`)},
		{"trailing bytes", diag.InvalidPayload, append(append([]byte{}, body...), " x"...)},
		{"signatures", diag.ItemLimit, splice(body, tail, many.String())},
	}
	send := func(b []byte, chunked bool) (int, string) {
		var rd io.Reader = bytes.NewReader(b)
		if chunked {
			rd = io.MultiReader(rd)
		}
		req, _ := http.NewRequest(http.MethodPost, px.URL+geminiPipePath, rd)
		req.Header.Set("X-Goog-Api-Key", "key-A")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		a, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(a)
	}
	neverWhole := func(name string) {
		t.Helper()
		select {
		case r := <-got:
			if r.err == nil {
				t.Fatalf("%s: the upstream read a complete body of %d bytes", name, len(r.body))
			}
		case <-time.After(200 * time.Millisecond):
		}
	}
	for _, c := range cases {
		status, answer := send(c.body, false)
		neverWhole(c.name)
		wantStatus, wantAnswer := send(c.body, true) // read whole, then refused
		if len(got) > 0 {
			t.Fatalf("%s: the whole-body path sent the body", c.name)
		}
		if status != wantStatus || answer != wantAnswer || !strings.Contains(answer, `"code":"`+c.code+`"`) {
			t.Fatalf("%s: pipelined %d %s\n whole-body %d %s", c.name, status, answer, wantStatus, wantAnswer)
		}
	}
	// A body whose client gives up halfway.
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write(body[:len(body)/2])
		time.Sleep(100 * time.Millisecond)
		pw.CloseWithError(errors.New("the client gave up"))
	}()
	req, _ := http.NewRequest(http.MethodPost, px.URL+geminiPipePath, pr)
	req.ContentLength = int64(len(body))
	req.Header.Set("X-Goog-Api-Key", "key-A")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	neverWhole("stopped halfway")
}

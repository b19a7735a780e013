package proxy

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// received is one request as a recording upstream read it: its body, or
// the error that ended reading it.
type received struct {
	body    []byte
	err     error
	chunked bool // it came without a Content-Length
}

// recordingUpstream answers every request with an empty JSON object after
// reading its body to the end (or to the error that cuts it short).
func recordingUpstream(t *testing.T, got chan<- received) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		got <- received{b, err, r.ContentLength < 0}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// postAs sends body to the proxy as the bearer of token and returns the
// status and answer.
func postAs(t *testing.T, url, token string, body []byte) (int, []byte) {
	t.Helper()
	return post(t, url, token, body, false)
}

// post is postAs, chunked (without a Content-Length) when asked.
func post(t *testing.T, url, token string, body []byte, chunked bool) (int, []byte) {
	t.Helper()
	var rd io.Reader = bytes.NewReader(body)
	if chunked {
		rd = io.MultiReader(rd) // hides the length: the client sends it chunked
	}
	req, _ := http.NewRequest("POST", url+"/v1/responses", rd)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// sessionBody is a generated payload of the session "pipe".
func sessionBody(p payloadgen.Payload) []byte {
	return append([]byte(`{"prompt_cache_key":"pipe",`), p.Body[1:]...)
}

// pipelinedSession is a proxy whose session "pipe" has been seen with
// accounts B and then A, so that A's requests are pipelined from
// pipelineFrom bytes and omit every item not recorded as issued to A.
func pipelinedSession(t *testing.T) (*Proxy, string, <-chan received) {
	t.Helper()
	got := make(chan received, 1)
	up := recordingUpstream(t, got)
	p, px := newTestProxy(t, up.URL, "")
	for _, token := range []string{"acct-B", "acct-A"} {
		if status, b := postAs(t, px.URL, token, []byte(`{"prompt_cache_key":"pipe","input":[{"role":"user","content":"hi"}]}`)); status != 200 {
			t.Fatalf("%s: %d %s", token, status, b)
		}
		<-got
	}
	return p, px.URL, got
}

// TestPipelinedBytesAreSelects: across generated payloads of every shape,
// with some of their reasoning issued to the sender and the rest omitted,
// the bytes the upstream receives from the pipelined path — sent while
// the filter is still scanning — are exactly filter.Select's output on the
// same payload with the same decisions.
func TestPipelinedBytesAreSelects(t *testing.T) {
	p, url, got := pipelinedSession(t)
	acctA, _ := accountOf(http.Header{"Authorization": {"Bearer acct-A"}})
	acctA = p.root.issuer(acctA) // the issuer: upstream and account
	rng := rand.New(rand.NewPCG(7, 11))
	specs := []payloadgen.Spec{
		payloadgen.Typical(pipelineFrom + 300<<10),
		payloadgen.ReasoningHeavy(2<<20, 12),
		payloadgen.Ordinary(pipelineFrom + 64<<10),
		{Seed: 9, Size: 3 << 20, Reasoning: 60, CipherBytes: 4 << 10, SummaryParts: 2, ToolOutputBytes: 40 << 10},
		{Seed: 10, Size: pipelineFrom + 1, Reasoning: 3, SummaryParts: 1, ToolOutputBytes: 1 << 10, ImageBytes: 600 << 10},
	}
	for i := range 12 {
		spec := specs[i%len(specs)]
		spec.Seed += uint64(i)
		gen := payloadgen.Generate(spec)
		body := sessionBody(gen)
		mine := map[[32]byte]bool{}
		keep := rng.IntN(3) // 0: omit all, 1: keep all, 2: keep about half
		for _, c := range gen.Ciphers {
			fp := filter.Fingerprint(string(body[c[0]+len(`"prompt_cache_key":"pipe",`) : c[1]+len(`"prompt_cache_key":"pipe",`)]))
			if keep == 1 || keep == 2 && rng.IntN(2) == 0 {
				p.issuers.record(fp, acctA)
				mine[fp] = true
			}
		}
		want, err := filter.Select(context.Background(), body, filter.Options{StripPairedIDs: true}, nil,
			func(c filter.Candidate) bool { return !mine[c.Fingerprint] })
		if err != nil {
			t.Fatal(err)
		}
		if status, b := postAs(t, url, "acct-A", body); status != 200 {
			t.Fatalf("payload %d: %d %s", i, status, b)
		}
		r := <-got
		if r.err != nil || !r.chunked {
			t.Fatalf("payload %d: read %v, chunked %v", i, r.err, r.chunked)
		}
		if !bytes.Equal(r.body, want.Final(body)) {
			t.Fatalf("payload %d (%d bytes, %d reasoning, keep %d): the upstream got %d bytes, Select gives %d",
				i, len(body), len(gen.Ciphers), keep, len(r.body), len(want.Final(body)))
		}
	}
}

// TestLateFaultNeverSent: a large payload that turns out malformed, or to
// hold an unsupported reasoning item, only near its end is answered with
// the filter's named error and never reaches the upstream: the filter has
// scanned it by the time it is placed, whether it came with a
// Content-Length (followed while read) or chunked (scanned once read).
func TestLateFaultNeverSent(t *testing.T) {
	_, url, got := pipelinedSession(t)
	gen := payloadgen.Generate(payloadgen.Typical(3 << 20))
	body := sessionBody(gen)
	tail := bytes.LastIndex(body, []byte(`{"type":"function_call_output"`))
	cases := []struct {
		name, code string
		body       []byte
	}{
		// A raw control byte in the last tool output's string.
		{"malformed", diag.InvalidPayload, splice(body, tail+len(`{"type":"function_call_output","call_id":"`), "\x01")},
		{"unsupported", diag.UnsupportedReasoning, splice(body, tail, `{"type":"reasoning","status":"in_progress","encrypted_content":"x"},`)},
	}
	for _, c := range cases {
		for _, chunked := range []bool{false, true} {
			status, b := post(t, url, "acct-A", c.body, chunked)
			if status != 400 || !bytes.Contains(b, []byte(`"code":"`+c.code+`"`)) {
				t.Fatalf("%s (chunked %v): %d %s", c.name, chunked, status, b)
			}
			select {
			case r := <-got:
				t.Fatalf("%s (chunked %v): the upstream got %d bytes (%v)", c.name, chunked, len(r.body), r.err)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// TestLedgerFailureMidBodyAborts: when the ledger fails on an item once a
// pipelined request has started — its headers sent, its body under way —
// the upstream request is cut off before its body ends and the client gets
// the named 503.
func TestLedgerFailureMidBodyAborts(t *testing.T) {
	p, url, got := pipelinedSession(t)
	acctA, _ := accountOf(http.Header{"Authorization": {"Bearer acct-A"}})
	acctA = p.root.issuer(acctA) // the issuer: upstream and account
	gen := payloadgen.Generate(payloadgen.Typical(3 << 20))
	body := sessionBody(gen)
	shift := len(`"prompt_cache_key":"pipe",`)
	for _, c := range gen.Ciphers[:len(gen.Ciphers)/2] { // the rest must be asked of the ledger
		p.issuers.record(filter.Fingerprint(string(body[c[0]+shift:c[1]+shift])), acctA)
	}
	p.ledger.db.Close()
	status, b := postAs(t, url, "acct-A", body)
	if status != 503 || !bytes.Contains(b, []byte(`"code":"`+diag.StorageUnavailable+`"`)) {
		t.Fatalf("%d %s", status, b)
	}
	select {
	case r := <-got:
		if r.err == nil {
			t.Fatalf("the upstream read a complete body of %d bytes", len(r.body))
		}
		t.Logf("the upstream read %d of %d bytes before the cut: %v", len(r.body), len(body), r.err)
	case <-time.After(2 * time.Second):
		// Cut off before the upstream saw the request: never complete either.
	}
}

// splice inserts s into b at i, in a new slice.
func splice(b []byte, i int, s string) []byte {
	out := append(append(append([]byte{}, b[:i]...), s...), b[i:]...)
	return out
}

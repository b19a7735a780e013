package proxy_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// compress encodes body with coding ("" leaves it as it is).
func compress(t *testing.T, body []byte, coding string) []byte {
	t.Helper()
	b, err := supplier.Encode(body, coding)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCompressedRequests: Codex signed in with ChatGPT sends its requests
// zstd-compressed. Through the real binary such a thread switching from A
// to B is filtered like a plain one — the supplier receives the filtered
// body compressed the same way — while a request the filter leaves alone
// reaches it as the client's own bytes; gzip and deflate work alike, and so does a
// body of a MiB or more. A body that does not decompress is refused by
// name and not sent.
func TestCompressedRequests(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "")
	for _, coding := range []string{"zstd", "gzip", "deflate"} {
		c := &responsesClient{t: t, base: px.URL, session: "compressed-" + coding, coding: coding}
		c.accept(tokenA, "one")
		if st, _ := c.send(tokenA, "two"); st != 200 || reasoningSent(t, sup) != 1 {
			t.Fatalf("%s, same account: %d, %d reasoning items", coding, st, reasoningSent(t, sup))
		}
		log := sup.Requests()
		if last := log[len(log)-1]; last.Encoding != coding || !bytes.Equal(last.Wire, c.sent) {
			t.Fatalf("%s: an unfiltered request did not reach the supplier as the client's bytes (%q)", coding, last.Encoding)
		}
		if st, _ := c.send(tokenB, "as B"); st != 200 || reasoningSent(t, sup) != 0 {
			t.Fatalf("%s, switched to B: %d, %d reasoning items sent", coding, st, reasoningSent(t, sup))
		}
		log = sup.Requests()
		if last := log[len(log)-1]; last.Encoding != coding || bytes.Equal(last.Wire, c.sent) {
			t.Fatalf("%s: the filtered request reached the supplier as %q, unchanged %v", coding, last.Encoding, bytes.Equal(last.Wire, c.sent))
		}
	}
	// A body of a MiB or more is not pipelined: compressing again as the
	// filter emits measured slower than filtering, then compressing whole.
	big := &responsesClient{t: t, base: px.URL, session: "compressed-big", coding: "zstd"}
	if st, _ := big.send(tokenA, strings.Repeat("x", 1<<20)); st != 200 {
		t.Fatalf("a large zstd body: %d", st)
	}
	if st, _ := big.send(tokenB, "as B"); st != 200 || reasoningSent(t, sup) != 0 {
		t.Fatalf("a large zstd body switched to B: %d, %d reasoning items sent", st, reasoningSent(t, sup))
	}
	log := sup.Requests()
	if last := log[len(log)-1]; last.Encoding != "zstd" || last.Header.Get("Content-Length") == "" || len(last.Body) < 1<<20 {
		t.Fatalf("the large filtered body reached the supplier as %q, Content-Length %q, %d bytes", last.Encoding, last.Header.Get("Content-Length"), len(last.Body))
	}

	n := len(sup.Requests())
	req, _ := http.NewRequest(http.MethodPost, px.URL+"/v1/responses", strings.NewReader("not zstd at all"))
	req.Header.Set("Authorization", "Bearer "+tokenA)
	req.Header.Set("Content-Encoding", "zstd")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), "REQUEST_UNDECODABLE") || len(sup.Requests()) != n {
		t.Fatalf("a body that is not zstd: %d %s (sent on: %v)", resp.StatusCode, b, len(sup.Requests()) != n)
	}
}

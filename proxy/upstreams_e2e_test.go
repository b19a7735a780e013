package proxy_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// startKeyedSupplier is a supplier double whose one account authenticates
// with tokenA and binds its reasoning with key: two of them are two
// suppliers the same API key works at.
func startKeyedSupplier(t *testing.T, key string) *supplier.Server {
	t.Helper()
	srv, err := supplier.Start(supplier.Config{Accounts: []supplier.Account{{Name: "acct-A", Token: tokenA, Key: key}}, ReasoningWithoutID: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestCodexBetweenNamedUpstreams: the real Codex CLI moves one thread
// between two named upstreams of one proxy (two suppliers, the same key)
// by its base URL only: every request through the proxy is accepted, as
// the issuer of an item is the upstream and the account; the turn sent
// straight to the other supplier is rejected.
func TestCodexBetweenNamedUpstreams(t *testing.T) {
	t.Parallel()
	one, two := startKeyedSupplier(t, "key-one-0123"), startKeyedSupplier(t, "key-two-4567")
	px := startProxy(t, "", "", "--upstream", "one="+one.URL(), "--upstream", "two="+two.URL())
	c := newCodex(t, "sup", 0)
	for i, sup := range []*supplier.Server{one, two, one, two} {
		base := px.URL + map[*supplier.Server]string{one: "/one", two: "/two"}[sup]
		if i == 1 {
			n := len(two.Requests())
			out, err := c.tryTurn(two.URL(), tokenA, "straight to two")
			if direct := since(two, n); err == nil || len(direct) == 0 || direct[0].Status != 400 {
				t.Fatalf("the thread sent straight to the second supplier was not rejected: %v %s\n%s", err, lastProblem(direct), out)
			}
		}
		toolTurn(sup)
		n := len(sup.Requests())
		c.turn(base, tokenA, "turn "+strconv.Itoa(i+1), i > 0)
		checkTurn(t, since(sup, n), "acct-A", 2)
	}
	st := pageState(t, px)
	if len(st.Sessions) != 1 || st.Sessions[0].Accounts != 2 {
		t.Fatalf("sessions %+v, want one thread seen with two issuers", st.Sessions)
	}
}

// TestResponsesPathVariantsRefused: every spelling of the Responses path
// an upstream may route to the endpoint, but that the proxy does not
// filter, is refused with RESPONSES_PATH_REFUSED and never reaches the
// upstream with another account's reasoning; a prefix no upstream is
// named by is UNKNOWN_UPSTREAM when none is served at the root.
func TestResponsesPathVariantsRefused(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	for _, c := range []struct {
		args  []string
		paths []string
	}{
		{[]string{"--upstream", sup.URL()}, []string{"/v1/responses/", "/v1/RESPONSES", "/v1/Responses", "/v1/responses;x", "/v1/responses%2f",
			"/v1/responses%2F", "/v1/respons%65s", "/v1/responses/compact/", "/v1/responses/compact;a=b", "/v1/responses/.", "/v1/responses/compact%2f"}},
		{[]string{"--upstream", "one=" + sup.URL()}, []string{"/one/v1/responses/", "/one/v1/RESPONSES;x", "/one/v1/responses%2f"}},
	} {
		px := startProxy(t, "", "", c.args...)
		body := `{"model":"m","prompt_cache_key":"r3","input":[{"role":"user","content":"q"},` +
			`{"type":"reasoning","id":"rs_90","summary":[],"encrypted_content":"` + sup.Mint("acct-A", "rs_90") + `"},` +
			`{"type":"message","id":"msg_90","role":"assistant","content":[]}]}`
		for _, path := range c.paths {
			n := len(sup.Requests())
			req, _ := http.NewRequest(http.MethodPost, px.URL+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+tokenB)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 400 || gjson.GetBytes(b, "error.code").String() != "RESPONSES_PATH_REFUSED" || len(sup.Requests()) != n {
				t.Fatalf("%s: %d %s, %d requests reached the supplier", path, resp.StatusCode, b, len(sup.Requests())-n)
			}
		}
		if c.args[1] == sup.URL() {
			continue
		}
		resp, err := http.Post(px.URL+"/v1/responses", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || gjson.GetBytes(b, "error.code").String() != "UNKNOWN_UPSTREAM" {
			t.Fatalf("a path under no upstream: %d %s", resp.StatusCode, b)
		}
	}
}

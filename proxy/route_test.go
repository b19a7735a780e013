package proxy

import (
	"net/http/httptest"
	"net/url"
	"testing"
)

// TestLooksLikeResponses: the spellings an upstream may route to the
// Responses endpoints are recognised; other paths are not.
func TestLooksLikeResponses(t *testing.T) {
	for raw, want := range map[string]bool{
		"/v1/responses/": true, "/v1/RESPONSES": true, "/v1/responses;x": true, "/v1/responses%2f": true,
		"/v1/responses/compact/": true, "/v1/respons%65s": true, "/v1/responses/./": true, "/v1/Responses/Compact;v=1": true,
		"/v1/responses/resp_1": false, "/v1/responses/resp_1/cancel": false, "/v1/chat/completions": false, "/v1/responsesx": false,
	} {
		u, err := url.Parse("http://h" + raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := looksLikeResponses(u); got != want {
			t.Errorf("%s: %v, want %v", raw, got, want)
		}
	}
}

// TestRoute: a named upstream's prefix is cut from the path (its escaped
// form too); another path goes to the root upstream, or nowhere when there
// is none.
func TestRoute(t *testing.T) {
	root, _ := url.Parse("http://root")
	named, _ := url.Parse("http://named/base")
	p := &Proxy{upstreams: []upstream{newUpstream(Upstream{Name: "gw", URL: named})}}
	if _, ok := p.route(httptest.NewRequest("POST", "/v1/responses", nil)); ok {
		t.Fatal("routed without a root upstream")
	}
	r, ok := p.route(httptest.NewRequest("POST", "/gw/v1/a%2Fb", nil))
	if !ok || upstreamOf(r).Name != "gw" || r.URL.Path != "/v1/a/b" || r.URL.EscapedPath() != "/v1/a%2Fb" {
		t.Fatalf("%v %+v %s", ok, r.URL, r.URL.EscapedPath())
	}
	ru := newUpstream(Upstream{URL: root})
	p.root = &ru
	if r, ok := p.route(httptest.NewRequest("POST", "/gwx/v1/responses", nil)); !ok || upstreamOf(r) != p.root || r.URL.Path != "/gwx/v1/responses" {
		t.Fatalf("%v %+v", ok, r.URL)
	}
	if a := (Account{1}); p.upstreams[0].issuer(a) == p.root.issuer(a) {
		t.Fatal("one account at two upstreams is one issuer")
	}
}

package proxy

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestGuard: the API needs a loopback Host (or a configured one), the
// secret, a same-origin fetch, and for a change the page's Origin and JSON.
func TestGuard(t *testing.T) {
	p := &Proxy{cfg: Config{Secret: "0123456789abcdef0123"}}
	req := func(method, host string, hdr ...string) (string, bool) {
		r := httptest.NewRequest(method, "http://"+host+"/continuity/state", strings.NewReader("{}"))
		r.Host = host
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		return p.guard(r, method == "POST")
	}
	secret := []string{SecretHeader, p.cfg.Secret}
	good := append(secret, "Origin", "http://127.0.0.1:8788", "Content-Type", "application/json", "Sec-Fetch-Site", "same-origin")
	for i, c := range []struct {
		method, host string
		hdr          []string
		ok           bool
	}{
		{"GET", "127.0.0.1:8788", secret, true},
		{"GET", "localhost:8788", append(secret, "Sec-Fetch-Site", "none"), true},
		{"GET", "[::1]:8788", secret, true},
		{"GET", "evil.example:8788", secret, false},
		{"GET", "127.0.0.1:8788", nil, false},
		{"GET", "127.0.0.1:8788", []string{SecretHeader, "wrong"}, false},
		{"GET", "127.0.0.1:8788", append(secret, "Sec-Fetch-Site", "cross-site"), false},
		{"POST", "127.0.0.1:8788", good, true},
		{"POST", "127.0.0.1:8788", append(good, "Origin", "http://127.0.0.1:9999"), false},
		{"POST", "127.0.0.1:8788", append(good, "Sec-Fetch-Site", "same-site"), false},
		{"POST", "127.0.0.1:8788", append(good, "Sec-Fetch-Site", "none"), false},
		{"POST", "127.0.0.1:8788", append(good, "Content-Type", "text/plain"), false},
		{"POST", "127.0.0.1:8788", secret, false},
	} {
		if reason, ok := req(c.method, c.host, c.hdr...); ok != c.ok {
			t.Errorf("%d: ok %v (%s)", i, ok, reason)
		}
	}
	p.cfg.Hosts = []string{"192.168.1.5:8788"}
	if _, ok := req("GET", "127.0.0.1:8788", secret...); ok {
		t.Error("a configured host list still let loopback in")
	}
	if _, ok := req("GET", "192.168.1.5:8788", secret...); !ok {
		t.Error("the configured host was refused")
	}
}

package proxy

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestGuard: the API needs a Host that is the address the request arrived
// at (an IP literal, or localhost on loopback), the secret, a same-origin
// fetch, and for a change the page's Origin and JSON.
func TestGuard(t *testing.T) {
	p := &Proxy{cfg: Config{Secret: "0123456789abcdef0123"}}
	req := func(method, local, host string, hdr ...string) (string, bool) {
		r := httptest.NewRequest(method, "http://"+host+"/continuity/state", strings.NewReader("{}"))
		r.Host = host
		if local != "" {
			addr, err := net.ResolveTCPAddr("tcp", local)
			if err != nil {
				t.Fatal(err)
			}
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		return p.guard(r, method == "POST")
	}
	const lo, lan = "127.0.0.1:8788", "192.0.2.2:8788"
	secret := []string{SecretHeader, p.cfg.Secret}
	good := slices.Concat(secret, []string{"Content-Type", "application/json", "Sec-Fetch-Site", "same-origin"})
	// with copies its arguments' headers so no two cases share an array.
	with := func(hdr []string, more ...string) []string { return slices.Concat(hdr, more) }
	from := func(origin string) []string { return with(good, "Origin", origin) }
	for _, c := range []struct {
		name, method, local, host string
		hdr                       []string
		ok                        bool
	}{
		{"loopback", "GET", lo, "127.0.0.1:8788", secret, true},
		{"localhost", "GET", lo, "localhost:8788", with(secret, "Sec-Fetch-Site", "none"), true},
		{"another loopback address", "GET", "127.0.0.2:8788", "127.0.0.1:8788", secret, true},
		{"ipv6 loopback", "GET", "[::1]:8788", "[::1]:8788", secret, true},
		{"the wildcard address from loopback", "GET", lo, "0.0.0.0:8788", secret, true},
		{"a name (DNS rebinding)", "GET", lo, "evil.example:8788", secret, false},
		{"a name on the LAN address", "GET", lan, "evil.example:8788", secret, false},
		{"localhost on the LAN address", "GET", lan, "localhost:8788", secret, false},
		{"another port through a loopback tunnel", "GET", lo, "localhost:9000", secret, true},
		{"a tunnel's change", "POST", lo, "localhost:9000", from("http://localhost:9000"), true},
		{"another port on the LAN address", "GET", lan, "192.0.2.2:9999", secret, false},
		{"no port on the LAN address is 80", "GET", lan, "192.0.2.2", secret, false},
		{"no port on port 80", "GET", "127.0.0.1:80", "127.0.0.1", secret, true},
		{"not from a connection", "GET", "", "127.0.0.1:8788", secret, false},
		{"no secret", "GET", lo, "127.0.0.1:8788", nil, false},
		{"wrong secret", "GET", lo, "127.0.0.1:8788", []string{SecretHeader, "wrong"}, false},
		{"cross-site fetch", "GET", lo, "127.0.0.1:8788", with(secret, "Sec-Fetch-Site", "cross-site"), false},
		{"change", "POST", lo, "127.0.0.1:8788", from("http://127.0.0.1:8788"), true},
		{"change on the LAN address", "POST", lan, "192.0.2.2:8788", from("http://192.0.2.2:8788"), true},
		{"LAN Host, loopback Origin", "POST", lan, "192.0.2.2:8788", from("http://127.0.0.1:8788"), false},
		{"another machine's address", "POST", lan, "192.0.2.9:8788", from("http://192.0.2.9:8788"), false},
		{"loopback Host on the LAN address", "POST", lan, "127.0.0.1:8788", from("http://127.0.0.1:8788"), false},
		{"a name with its own Origin", "POST", lan, "evil.example:8788", from("http://evil.example:8788"), false},
		{"another origin's port", "POST", lo, "127.0.0.1:8788", from("http://127.0.0.1:9999"), false},
		{"same-site", "POST", lo, "127.0.0.1:8788", with(from("http://127.0.0.1:8788"), "Sec-Fetch-Site", "same-site"), false},
		{"typed into the address bar", "POST", lo, "127.0.0.1:8788", with(from("http://127.0.0.1:8788"), "Sec-Fetch-Site", "none"), false},
		{"not JSON", "POST", lo, "127.0.0.1:8788", with(from("http://127.0.0.1:8788"), "Content-Type", "text/plain"), false},
		{"no Origin", "POST", lo, "127.0.0.1:8788", good, false},
		{"no Origin, a Referer", "POST", lo, "127.0.0.1:8788", with(good, "Referer", "http://127.0.0.1:8788/"), false},
	} {
		if reason, ok := req(c.method, c.local, c.host, c.hdr...); ok != c.ok {
			t.Errorf("%s: ok %v (%s)", c.name, ok, reason)
		}
	}
}

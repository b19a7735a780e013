package proxy

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// SecretHeader carries the per-run secret on every API request of the page.
const SecretHeader = "X-Continuity-Secret"

// guard decides whether an API request may read or change state. Three
// checks, each of which a foreign web page fails: the Host is the address
// the request arrived at (a DNS-rebinding page has its own name), the
// per-run secret matches (no other page can know it), and the browser's own
// provenance headers say the request comes from the page itself — Origin,
// required on a state change, must be this origin, and Sec-Fetch-Site, when
// sent, must be same-origin. A state change must also be JSON, which a
// cross-origin form cannot send without a preflight the proxy never grants.
// The page sends no Referer (Referrer-Policy: no-referrer), so a change
// without Origin is refused rather than judged by Referer.
func (p *Proxy) guard(r *http.Request, change bool) (reason string, ok bool) {
	if !hostArrivedAt(r) {
		return "the Host header is not the address this request arrived at", false
	}
	got := r.Header.Get(SecretHeader)
	if subtle.ConstantTimeCompare([]byte(got), []byte(p.cfg.Secret)) != 1 {
		return "the request does not carry this run's secret", false
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && !(site == "none" && !change) {
		return "the request comes from another site (" + site + ")", false
	}
	if !change {
		return "", true
	}
	if origin := r.Header.Get("Origin"); origin != "http://"+r.Host {
		return "the request's Origin is not this page", false
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return "a change must be sent as application/json", false
	}
	return "", true
}

// hostArrivedAt reports whether the request's Host names the address its
// connection was accepted on, so a proxy listening on a wildcard address
// answers under whichever of the machine's addresses the browser used and
// under no other. A DNS name is the rebinding attack — the attacker's name
// resolved to this machine — so only IP literals pass, plus, on a loopback
// connection, localhost (browsers resolve it themselves) and the wildcard
// address (a connection to 0.0.0.0 reaches loopback). The port must be the
// connection's too, except on a loopback connection: a tunnel (ssh -L
// 9000:localhost:8788, a container's port mapping) hands the browser's
// request on from another local port, and the Origin check and the secret
// still tie the request to the page the browser opened there.
func hostArrivedAt(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	if !ok {
		return false
	}
	name, port, err := net.SplitHostPort(r.Host)
	if err != nil { // no port: the scheme's own
		name, port = strings.Trim(r.Host, "[]"), "80"
	}
	if port != strconv.Itoa(local.Port) && !local.IP.IsLoopback() {
		return false
	}
	if local.IP.IsLoopback() && strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	switch {
	case ip == nil:
		return false
	case ip.Equal(local.IP):
		return true
	default:
		return local.IP.IsLoopback() && (ip.IsLoopback() || ip.IsUnspecified())
	}
}

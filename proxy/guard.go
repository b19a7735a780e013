package proxy

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// SecretHeader carries the per-run secret on every API request of the page.
const SecretHeader = "X-Continuity-Secret"

// guard decides whether an API request may read or change state. Three
// checks, each of which a foreign web page fails: the Host is one the proxy
// serves under (a DNS-rebinding page has its own name), the per-run secret
// matches (no other page can know it), and the browser's own provenance
// headers say the request comes from the page itself — Origin, required on
// a state change, must be this origin, and Sec-Fetch-Site, when sent, must
// be same-origin. A state change must also be JSON, which a cross-origin
// form cannot send without a preflight the proxy never grants.
func (p *Proxy) guard(r *http.Request, change bool) (reason string, ok bool) {
	if !p.hostAllowed(r.Host) {
		return "the Host header is not this proxy's address", false
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

// hostAllowed reports whether host (host:port from the Host header) names
// this proxy: one of the configured hosts, else a loopback name.
func (p *Proxy) hostAllowed(host string) bool {
	if len(p.cfg.Hosts) > 0 {
		for _, h := range p.cfg.Hosts {
			if strings.EqualFold(h, host) {
				return true
			}
		}
		return false
	}
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		name = host
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(name, "[]"))
	return ip != nil && ip.IsLoopback()
}

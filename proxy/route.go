package proxy

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// Upstream is one supplier the proxy forwards to. A named upstream is
// served under /NAME/…; the unnamed one at the root.
type Upstream struct {
	// Name is the path prefix; "" for the upstream served at the root.
	Name string
	// URL is the supplier's base URL; a request for PATH goes to URL + PATH.
	URL *url.URL
}

// upstream is an Upstream checked, with the identity issuers are bound to.
type upstream struct {
	Upstream
	// id is the base URL without credentials, query or trailing slash, host
	// lowercased: what the issuer of an item is bound to besides the
	// account, so the same key on two suppliers is two issuers.
	id string
}

func newUpstream(u Upstream) upstream {
	id := strings.ToLower(u.URL.Scheme) + "://" + strings.ToLower(u.URL.Host) + strings.TrimRight(u.URL.EscapedPath(), "/")
	return upstream{Upstream: u, id: id}
}

// issuer is the issuer of what account a is given through this upstream:
// the (upstream, account) pair as one digest, so the ledger's rows and the
// page keep the shape of an account digest.
func (u *upstream) issuer(a Account) Account {
	s := sha256.New()
	s.Write([]byte("continuity-proxy-issuer\x00" + u.id + "\x00"))
	s.Write(a[:])
	var out Account
	s.Sum(out[:0])
	return out
}

type upstreamKey struct{}

// upstreamOf is the upstream route attached to r.
func upstreamOf(r *http.Request) *upstream {
	up, _ := r.Context().Value(upstreamKey{}).(*upstream)
	return up
}

// route finds the upstream a request goes to and returns the request as
// that upstream is to see it: the /NAME prefix of a named upstream cut
// from its path. ok is false when no upstream serves the path.
func (p *Proxy) route(r *http.Request) (*http.Request, bool) {
	first, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	for i := range p.upstreams {
		up := &p.upstreams[i]
		if up.Name == "" || up.Name != first {
			continue
		}
		out := r.WithContext(context.WithValue(r.Context(), upstreamKey{}, up))
		u := *r.URL
		u.Path = "/" + rest
		u.RawPath = ""
		if raw := r.URL.RawPath; raw != "" {
			_, rawRest, _ := strings.Cut(strings.TrimPrefix(raw, "/"), "/")
			u.RawPath = "/" + rawRest
		}
		out.URL = &u
		return out, true
	}
	if p.root == nil {
		return r, false
	}
	return r.WithContext(context.WithValue(r.Context(), upstreamKey{}, p.root)), true
}

// responsesPath reports whether path is a Responses create or compact
// endpoint under any base path (/v1/responses, /openai/responses, …), as
// the proxy filters it.
func responsesPath(path string) bool {
	return strings.HasSuffix(path, "/responses") || strings.HasSuffix(path, "/responses/compact")
}

// looksLikeResponses reports whether an upstream might route a request for
// this URL to the Responses create or compact endpoint though its path is
// not one the proxy filters: a trailing slash, another letter case, a ;
// parameter, a percent-encoded slash or letter, a dot segment. Such a
// request is refused rather than forwarded unfiltered.
func looksLikeResponses(u *url.URL) bool {
	raw := u.EscapedPath()
	if dec, err := url.PathUnescape(raw); err == nil {
		raw = dec
	}
	segs := strings.Split(strings.ToLower(raw), "/")
	for i, s := range segs {
		s, _, _ = strings.Cut(s, ";")
		segs[i] = s
	}
	canon := path.Clean("/" + strings.Join(segs, "/"))
	return responsesPath(canon)
}

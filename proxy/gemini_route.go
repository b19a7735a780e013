package proxy

import (
	"crypto/sha256"
	"net/http"
	"net/http/httputil"
	"strings"
)

// geminiUpstream is one upstream Gemini requests are filtered for: its
// name in issuers (a signature is bound to where it was minted, so the
// same key on two upstreams is two issuers) and the reverse proxy that
// sends to it with the signature tap on the answers (rp), or untouched
// (plain). upstreamRequest builds one for the upstream a request is routed
// to, bare --upstream or /NAME/.
type geminiUpstream struct {
	issuer    string
	rp, plain *httputil.ReverseProxy
}

// geminiUpstream is the geminiUpstream of up, its issuers named by the
// upstream's identity (its base URL without credentials or query).
func (p *Proxy) geminiUpstream(up *upstream) geminiUpstream {
	return geminiUpstream{issuer: up.id, rp: p.geminiRP, plain: p.plain}
}

// geminiMethods are the Gemini API's model calls whose request bodies
// replay thought signatures, matched case-insensitively so no spelling an
// upstream might route reaches it unfiltered.
var geminiMethods = []string{":generatecontent", ":streamgeneratecontent"}

// geminiPath reports whether path is a Gemini generateContent or
// streamGenerateContent call under any base path
// (/v1beta/models/{model}:streamGenerateContent, /gemini/v1/models/…).
func geminiPath(path string) bool {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return false
	}
	last := strings.ToLower(strings.TrimRight(path[i+len("/models/"):], "/"))
	for _, m := range geminiMethods {
		if strings.HasSuffix(last, m) && len(last) > len(m) && !strings.Contains(last, "/") {
			return true
		}
	}
	return false
}

// geminiAccountOf returns the issuer a Gemini request's signatures are
// bound to: the digest of the upstream and the API key, which travels in
// x-goog-api-key, the key= query parameter, or a bearer token
// (GEMINI_API_KEY_AUTH_MECHANISM=bearer). The upstream is in the digest
// because a signature is bound to where it was minted as much as to the
// key. ok is false for a request without a key. The key is never kept.
func geminiAccountOf(r *http.Request, upstream string) (a Account, ok bool) {
	key := r.Header.Get("X-Goog-Api-Key")
	if key == "" {
		key = r.URL.Query().Get("key")
	}
	if key == "" {
		if v, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); bearer {
			key = v
		}
	}
	if key == "" {
		return Account{}, false
	}
	s := sha256.New()
	s.Write([]byte("continuity-proxy-account\x00gemini\x00" + upstream + "\x00"))
	s.Write([]byte(key))
	s.Sum(a[:0])
	return a, true
}

package proxy

import (
	"context"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync/atomic"

	"github.com/continuity-dev/continuity/diag"
)

// apiPrefix is where the status page's API lives; nothing under it is
// forwarded.
const apiPrefix = "/continuity/"

// Proxy is the reverse proxy. It is an http.Handler; the caller owns the
// server and its listener.
type Proxy struct {
	cfg Config
	// upstreams are the named upstreams; root is the one served at the
	// root, nil when there is none.
	upstreams []upstream
	root      *upstream
	ledger    *ledger
	issuers   *issuers
	sessions  *registry
	// budget bounds the request bodies held at once (Limits.BodyBudget).
	budget *budget
	// plain forwards everything the proxy does not filter, untouched.
	plain *httputil.ReverseProxy
	// filtered forwards …/responses requests: the body is the one the
	// handler prepared, the response goes through the tap.
	filtered *httputil.ReverseProxy
	// geminiRP sends Gemini requests to their upstream with the signature
	// tap on the answers (gemini_route.go).
	geminiRP *httputil.ReverseProxy
	// buffers are the buffers the ReverseProxies copy answers through.
	buffers *copyBuffers
	// bodies are the buffers pipelined request bodies were read into,
	// kept for the next (bodypool.go).
	bodies *bodyBuffers
	// apiMux routes the page API (apiRoutes).
	apiMux *http.ServeMux
	// refused counts the page API requests the guard refused in this run.
	refused atomic.Int64
}

// New returns a Proxy for cfg.
func New(cfg Config) (*Proxy, error) {
	cfg, err := cfg.check()
	if err != nil {
		return nil, err
	}
	l, err := openLedger(context.Background(), cfg.DB)
	if err != nil {
		return nil, err
	}
	p := &Proxy{cfg: cfg, ledger: l, issuers: newIssuers(l), sessions: newRegistry(),
		budget: newBudget(cfg.Limits.BodyBudget, cfg.Limits.BudgetWait), buffers: newCopyBuffers(), bodies: new(bodyBuffers)}
	for _, u := range cfg.Upstreams {
		p.upstreams = append(p.upstreams, newUpstream(u))
	}
	if cfg.Upstream != nil {
		root := newUpstream(Upstream{URL: cfg.Upstream})
		p.root = &root
	}
	p.plain = p.reverseProxy(nil)
	p.filtered = p.reverseProxy(p.modifyResponse)
	p.geminiRP = p.reverseProxy(p.modifyGeminiResponse)
	p.apiMux = p.apiRoutes()
	return p, nil
}

// reverseProxy builds a ReverseProxy to the upstream that flushes every
// write (server-sent events pass as they arrive), copies through the
// proxy's buffers (copyBufSize), hands a pipelined body to the transport
// as it is (unhiding) and answers transport failures with a named error.
// With modify, the answers come back decoded.
func (p *Proxy) reverseProxy(modify func(*http.Response) error) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			up := upstreamOf(pr.In).URL
			pr.SetURL(up)
			pr.Out.Host = up.Host
			// The client's own forwarding headers, if any, stay as they
			// were; the proxy adds none, as it is the client's own machine.
			if modify != nil {
				// The tap and the rejection detector read the answer's
				// bytes, so they must be plain: without the client's
				// Accept-Encoding (Node's fetch sends gzip, deflate, br)
				// the transport asks for gzip itself and decodes it.
				pr.Out.Header.Del("Accept-Encoding")
			}
		},
		Transport:      unhiding{p.cfg.Transport},
		FlushInterval:  -1,
		BufferPool:     p.buffers,
		ModifyResponse: modify,
		ErrorHandler:   p.upstreamFailed,
	}
}

// ServeHTTP routes a request: the status page, its API, filtered
// …/responses requests, and everything else passed through; first, its
// framing is checked (framed) and its body paced (paced).
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	framed(w, r)
	r = p.paced(w, r)
	switch {
	case r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		p.page(w, r)
	case strings.HasPrefix(r.URL.Path, apiPrefix):
		p.api(w, r)
	default:
		p.upstreamRequest(w, r)
	}
}

// upstreamRequest routes a request to its upstream: filtered when it is a
// Responses request, refused when an upstream might take it for one though
// the proxy would not filter it (see looksLikeResponses), else passed
// through.
func (p *Proxy) upstreamRequest(w http.ResponseWriter, r *http.Request) {
	r, ok := p.route(r)
	switch {
	case !ok:
		p.answerError(w, r, fail(http.StatusNotFound, diag.ProxyUnknownUpstream,
			"continuity proxy: no upstream is served under this path; use one of the proxy's /NAME/ prefixes", nil))
	case r.Method != http.MethodPost:
		p.plain.ServeHTTP(w, r)
	case responsesPath(r.URL.Path) && r.URL.RawPath == "":
		p.responses(w, r)
	case geminiPath(r.URL.Path):
		p.geminiRequest(w, r, p.geminiUpstream(upstreamOf(r)))
	case looksLikeResponses(r.URL):
		p.answerError(w, r, fail(http.StatusBadRequest, diag.ProxyResponsesPathRefused,
			"continuity proxy: the request was not sent: its path may reach the Responses endpoint but is not one the proxy filters; send it to …/responses or …/responses/compact exactly", nil).
			logs("responses path variant refused"))
	default:
		p.plain.ServeHTTP(w, r)
	}
}

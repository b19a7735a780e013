package proxy

import (
	"errors"
	"net/http"
	"sync/atomic"

	"github.com/continuity-dev/continuity/filter"
)

// pipelineFrom is the body size from which a filtered request is sent to
// the upstream while it is being filtered (chunked, its final length not
// yet known) instead of after: the decisions and the last fingerprints
// then overlap the transfer, so a large body adds about the filter's time
// left after the read, not that plus a second transfer. Smaller bodies go
// with a Content-Length.
const pipelineFrom = 1 << 20

// errRequestDone ends a pipelined filter whose upstream stopped reading.
var errRequestDone = errors.New("proxy: the upstream request ended")

// pipeline forwards the body st follows, filtered by the provenance rule,
// as the filter emits it. The filter runs on its own goroutine, owned by
// this call: it hands the final bytes to the body the upstream request
// reads (slices of the request buffer, not copies), and this call waits
// for it before returning. A filter error aborts the upstream request and
// is answered as a named 400 (see upstreamFailed).
func (p *Proxy) pipeline(w http.ResponseWriter, r *http.Request, st *filter.Stream, fl *flight) {
	sb := newStreamBody()
	fl.filterErr = new(atomic.Pointer[error])
	done := make(chan filter.Omitted, 1)
	go func() {
		om, err := p.sendFollowed(r.Context(), st, fl, sb.send)
		if err != nil && !errors.Is(err, errRequestDone) {
			fl.filterErr.Store(&err)
		}
		sb.finish(err) // nil: the body ends here
		done <- om
	}()
	out := r.Clone(r.Context())
	out.Body = sb
	out.ContentLength = -1
	out.Header.Del("Content-Length")
	out.GetBody = nil
	p.filtered.ServeHTTP(w, withFlight(out, fl))
	sb.Close()
	p.sent(fl, <-done)
}

// filterFailed reports the filter error of a pipelined request, if any.
func (fl *flight) filterFailed() error {
	if fl == nil || fl.filterErr == nil {
		return nil
	}
	if e := fl.filterErr.Load(); e != nil {
		return *e
	}
	return nil
}

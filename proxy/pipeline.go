package proxy

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/continuity-dev/continuity/filter"
)

// pipelineFrom is the body size from which a filtered request is sent to
// the upstream while it is being filtered (chunked, its final length not
// yet known) instead of after: the upstream then receives the bytes before
// the first omitted item while the ciphertexts after it are fingerprinted,
// so a large body adds about the filter's time, not the filter's time plus
// a second transfer. Smaller bodies go with a Content-Length.
const pipelineFrom = 1 << 20

// errRequestDone ends a pipelined filter whose upstream stopped reading.
var errRequestDone = errors.New("proxy: the upstream request ended")

// pipeline forwards body, filtered by the provenance rule, as the filter
// emits it. The filter runs on its own goroutine, owned by this call: it
// writes into a pipe the upstream request reads, and this call waits for
// it before returning. A filter error aborts the upstream request and is
// answered as a named 400 (see upstreamFailed).
func (p *Proxy) pipeline(w http.ResponseWriter, r *http.Request, body []byte, pl placed, fl *flight) {
	pr, pw := io.Pipe()
	fl.filterErr = new(atomic.Pointer[error])
	done := make(chan filter.Omitted, 1)
	go func() {
		var failed error // a ledger failure: the body must not end well
		res, err := filter.SelectStream(r.Context(), body, filter.Options{StripPairedIDs: true}, nil,
			p.provenance(r.Context(), pl, fl.account, &failed), func(b []byte) error {
				if failed != nil {
					return failed
				}
				_, err := pw.Write(b)
				return err
			})
		if err == nil {
			err = failed
		}
		if err != nil && !errors.Is(err, errRequestDone) {
			fl.filterErr.Store(&err)
		}
		pw.CloseWithError(err) // nil: the body ends here
		done <- res.Omitted
	}()
	out := r.Clone(r.Context())
	out.Body = pr
	out.ContentLength = -1
	out.Header.Del("Content-Length")
	out.GetBody = nil
	p.filtered.ServeHTTP(w, withFlight(out, fl))
	pr.CloseWithError(errRequestDone)
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

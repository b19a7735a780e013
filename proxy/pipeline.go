package proxy

import (
	"errors"
	"net/http"
	"sync/atomic"
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

// pipeline forwards to `to` the body that send emits, as it emits it:
// the Responses filter (filter.Stream.Send) once a body is read, or the
// Gemini filter while the body is still arriving (gemini.Follower.Send).
// send runs on its own goroutine, handing over slices a batch at a time, owned by this call: it hands the final
// bytes to the body the upstream request reads (slices of the request
// buffer, not copies, which the transport writes as they are: see
// unhiding), and this call waits for it before returning. An
// error of send aborts the upstream request, which never sees the body
// complete, and is answered by upstreamFailed (see unanswered). buf, when
// not nil, is the lease on the request buffer the slices are of: the
// upstream body holds it until the transport can no longer read them.
func (p *Proxy) pipeline(w http.ResponseWriter, r *http.Request, fl *flight, to http.Handler, buf *bodyLease, send func(emit func([][]byte) error) error) {
	sb := newStreamBody()
	if buf != nil {
		sb.quiet = buf.fence()
	}
	fl.filterErr = new(atomic.Pointer[error])
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := send(sb.sendAll)
		if err != nil && !errors.Is(err, errRequestDone) {
			fl.filterErr.Store(&err)
		}
		sb.finish(err) // nil: the body ends here
	}()
	out := r.Clone(r.Context())
	out.Body = sb
	out.ContentLength = -1
	out.Header.Del("Content-Length")
	out.GetBody = nil
	to.ServeHTTP(w, withFlight(withStreamBody(out, sb), fl))
	sb.Close()
	<-done
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

package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/continuity-dev/continuity/diag"
)

// Limits bound what one client connection, and all of them together, may
// hold of the proxy. A zero field takes its default (DefaultLimits).
type Limits struct {
	// HeaderTimeout is how long a request's header may take to arrive.
	HeaderTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection may wait for its
	// next request before the proxy closes it.
	IdleTimeout time.Duration
	// BodyGrace and BodyMinRate bound a request body's read: it must have
	// arrived within BodyGrace plus its length over BodyMinRate (bytes per
	// second), so a body that trickles in holds its connection for a
	// bounded time; past that it is answered 408 REQUEST_BODY_TOO_SLOW.
	BodyGrace   time.Duration
	BodyMinRate int64
	// BodyBudget bounds the bytes of request bodies the proxy holds at
	// once across all requests (as sent, and decompressed); BudgetWait is
	// how long a request waits for its share before it is answered 503
	// BODY_BUDGET_EXHAUSTED with Retry-After.
	BodyBudget int64
	BudgetWait time.Duration
}

// DefaultLimits are the limits of a zero Limits field.
var DefaultLimits = Limits{
	HeaderTimeout: 30 * time.Second,
	IdleTimeout:   2 * time.Minute,
	BodyGrace:     30 * time.Second,
	BodyMinRate:   64 << 10,
	BodyBudget:    1 << 30,
	BudgetWait:    10 * time.Second,
}

// ErrLimits reports a negative limit.
var ErrLimits = errors.New("proxy: a limit is negative")

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() (Limits, error) {
	d := DefaultLimits
	for _, f := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&l.HeaderTimeout, d.HeaderTimeout}, {&l.IdleTimeout, d.IdleTimeout}, {&l.BodyGrace, d.BodyGrace}, {&l.BudgetWait, d.BudgetWait}} {
		if *f.v < 0 {
			return l, ErrLimits
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	for _, f := range []struct{ v, def *int64 }{{&l.BodyMinRate, &d.BodyMinRate}, {&l.BodyBudget, &d.BodyBudget}} {
		if *f.v < 0 {
			return l, ErrLimits
		}
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	return l, nil
}

// Server is the HTTP server for p with its connection limits; the caller
// serves it on its listener and shuts it down. base is every request's
// parent context.
func (p *Proxy) Server(base context.Context) *http.Server {
	l := p.cfg.Limits
	return &http.Server{Handler: p, ReadHeaderTimeout: l.HeaderTimeout, IdleTimeout: l.IdleTimeout,
		BaseContext: func(net.Listener) context.Context { return base }}
}

// errBodyTooSlow ends a body read that fell behind the minimum rate.
var errBodyTooSlow = errors.New("the request body arrived slower than the proxy's minimum rate")

// framed applies the proxy's framing rule before a request is routed: a
// request framed by Transfer-Encoding is answered and its connection then
// closed. Go's server has already removed a Content-Length sent next to
// it (RFC 9112 §6.3 lets the Transfer-Encoding win), so a request carrying
// both cannot be told from one that is only chunked here; closing after
// every such answer means no bytes a front end might have framed
// differently are ever read as a next request on that connection. Known
// clients send their bodies with a Content-Length and keep their
// connections.
func framed(w http.ResponseWriter, r *http.Request) {
	if len(r.TransferEncoding) > 0 {
		w.Header().Set("Connection", "close")
	}
}

// paced gives r's body the minimum-rate read deadline of the limits; a
// request without a body is returned as it is.
func (p *Proxy) paced(w http.ResponseWriter, r *http.Request) *http.Request {
	if r.Body == nil || r.Body == http.NoBody {
		return r
	}
	l := p.cfg.Limits
	b := &pacedBody{body: r.Body, rc: http.NewResponseController(w), start: time.Now(), grace: l.BodyGrace, rate: l.BodyMinRate}
	r = r.WithContext(context.WithValue(r.Context(), pacedKey{}, b))
	r.Body = b
	return r
}

// pacedKey holds a request's pacedBody in its context, where the answer to
// a failed upstream request finds it (httputil.ReverseProxy hands its error
// handler the request with the body wrapped).
type pacedKey struct{}

// pacedBody is a request body read against a deadline that grows with
// what has arrived: start + grace + read/rate. The deadline is the
// connection's read deadline, cleared once the body has ended (so the
// server's wait for the connection's next bytes, while a long answer
// streams, has none).
//
// The transport reads it on its own goroutine while the handler may be
// answering a failure, and a read that passes the deadline cancels the
// request's context before Read returns; so the deadline and the count
// are atomics, and a body is too slow when its deadline has passed
// without it having ended (overdue), whichever goroutine asks first.
//
// Once the body has ended, every later Read returns what it ended with
// and leaves the server's body alone: the transport reads once more after
// a body's last byte to see its end, and by then the server may have
// closed the body (it does so as the answer's header goes out, which a
// fast upstream's answer can make happen first); that read would fail
// with "invalid Read on closed Body", and the transport would drop the
// upstream connection under the answer it was streaming.
type pacedBody struct {
	body     io.ReadCloser
	rc       *http.ResponseController
	start    time.Time
	grace    time.Duration
	rate     int64
	read     atomic.Int64
	deadline atomic.Int64 // unix ns of the current read's deadline; 0 once the body ended or is unpaced
	// The reading goroutine's: unpaced once the connection took no
	// deadline (the body is then read as it comes); end is what the body
	// ended with (io.EOF or its failure), nil until then.
	unpaced bool
	end     error
}

func (b *pacedBody) Read(p []byte) (int, error) {
	if b.end != nil {
		return 0, b.end
	}
	if b.unpaced {
		n, err := b.body.Read(p)
		b.end = err
		return n, err
	}
	deadline := b.start.Add(b.grace + time.Duration(b.read.Load()*int64(time.Second)/b.rate))
	if err := b.rc.SetReadDeadline(deadline); err != nil {
		b.unpaced = true // the connection takes no deadline: read unpaced
		return b.Read(p)
	}
	b.deadline.Store(deadline.UnixNano())
	n, err := b.body.Read(p)
	b.read.Add(int64(n))
	if err != nil {
		if slow := b.overdue(); slow != nil {
			b.end = slow
			return n, slow
		}
		b.end = err
		b.deadline.Store(0)
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// overdue is errBodyTooSlow, with what arrived, once the body's deadline
// has passed before it ended; else nil.
func (b *pacedBody) overdue() error {
	d := b.deadline.Load()
	if d == 0 || time.Now().UnixNano() < d {
		return nil
	}
	return fmt.Errorf("%w (%d bytes in %s)", errBodyTooSlow, b.read.Load(), time.Since(b.start).Round(time.Millisecond))
}

func (b *pacedBody) Close() error { return b.body.Close() }

// tooSlow is the error of r's body when it fell behind the minimum rate,
// else nil.
func tooSlow(r *http.Request) error {
	if b, ok := r.Context().Value(pacedKey{}).(*pacedBody); ok {
		return b.overdue()
	}
	return nil
}

// tooSlowError is the Error of a request whose body fell behind the
// minimum rate (408, Connection: close).
func (p *Proxy) tooSlowError(err error) *Error {
	e := fail(http.StatusRequestTimeout, diag.ProxyBodyTooSlow, "continuity proxy: "+err.Error()+
		fmt.Sprintf("; a body must arrive within %s plus its length at %d bytes a second (--body-grace, --body-min-rate)", p.cfg.Limits.BodyGrace, p.cfg.Limits.BodyMinRate), err).
		logs("request body too slow")
	e.Header = http.Header{"Connection": {"close"}}
	return e
}

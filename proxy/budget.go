package proxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/diag"
)

// Budget errors: a body that alone needs more than the whole budget
// (413 REQUEST_TOO_LARGE), and one whose share did not free up within the
// wait (503 BODY_BUDGET_EXHAUSTED with Retry-After).
var (
	errOverBudget = errors.New("the request body needs more memory than the proxy's whole body budget")
	errBudgetBusy = errors.New("the proxy's body budget is held by other requests")
)

// retryAfter is the Retry-After, in seconds, of a 503 BODY_BUDGET_EXHAUSTED.
const retryAfter = 2

// budget bounds the bytes of request bodies held at once across all
// requests: a body is charged before it is read or decompressed into
// memory, so what is charged is never less than what is held. A request
// that does not fit waits, first come first served, up to wait; one that
// could never fit is refused at once. The charge is returned when its
// request's handler ends (the buffers live until the upstream has the body
// and, for a pipelined one, while the filter emits it).
type budget struct {
	total int64
	wait  time.Duration

	mu      sync.Mutex
	used    int64
	peak    int64
	waiters []*budgetWaiter
	// garbage counts the bytes released since the budget last had the
	// garbage collector run (collect).
	garbage int64
}

// budgetWaiter is one request waiting for n bytes; ready is closed when
// they are granted.
type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

func newBudget(total int64, wait time.Duration) *budget { return &budget{total: total, wait: wait} }

// acquire charges n bytes, waiting up to b.wait or until ctx ends.
func (b *budget) acquire(ctx context.Context, n int64) error {
	if n > b.total {
		return errOverBudget
	}
	b.mu.Lock()
	if len(b.waiters) == 0 && b.used+n <= b.total {
		b.chargeLocked(n)
		b.mu.Unlock()
		b.collect()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	timer := time.NewTimer(b.wait)
	defer timer.Stop()
	var err error
	select {
	case <-w.ready:
		b.collect()
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-timer.C:
		err = errBudgetBusy
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // granted while the wait ended: give it back
		b.used -= n
	default:
		b.waiters = slices.DeleteFunc(b.waiters, func(o *budgetWaiter) bool { return o == w })
	}
	b.grantLocked() // a large head that gave up may have held smaller ones back
	return err
}

// collect runs the garbage collector when the bytes charged and those
// released since it last ran pass the total: the bodies of finished
// requests are then freed before a new one is allocated, so the process
// holds about the budget, not the budget plus what the collector has not
// yet reached (by default it lets the heap grow to twice what is live).
// Body buffers hold no pointers, so a collection costs little beside them.
// It runs twice: what sync.Pool holds (the decoders' buffers) survives one
// collection, and with one, eight bodies at once measured past the budget
// now and then.
func (b *budget) collect() {
	b.mu.Lock()
	run := b.used+b.garbage > b.total
	if run {
		b.garbage = 0
	}
	b.mu.Unlock()
	if run {
		runtime.GC()
		runtime.GC()
	}
}

// release returns n charged bytes and grants the waiters that now fit.
func (b *budget) release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	b.garbage += n
	b.grantLocked()
}

func (b *budget) chargeLocked(n int64) {
	b.used += n
	b.peak = max(b.peak, b.used)
}

// grantLocked grants waiters in order while the head fits.
func (b *budget) grantLocked() {
	for len(b.waiters) > 0 && b.used+b.waiters[0].n <= b.total {
		w := b.waiters[0]
		b.waiters = b.waiters[1:]
		b.chargeLocked(w.n)
		close(w.ready)
	}
}

// Peak is the most body bytes the proxy held charged at once in this run.
func (p *Proxy) Peak() int64 {
	p.budget.mu.Lock()
	defer p.budget.mu.Unlock()
	return p.budget.peak
}

// holding is one request's charge on the budget, grown as its body is
// read and decoded and returned whole when the request ends.
type holding struct {
	b   *budget
	ctx context.Context
	n   int64
}

// hold starts r's holding; the caller must release it.
func (p *Proxy) hold(r *http.Request) *holding { return &holding{b: p.budget, ctx: r.Context()} }

// take charges n more bytes to the holding.
func (h *holding) take(n int64) error {
	if n <= 0 {
		return nil
	}
	if h.n+n > h.b.total {
		return errOverBudget
	}
	if err := h.b.acquire(h.ctx, n); err != nil {
		return err
	}
	h.n += n
	return nil
}

// release returns the holding's charge.
func (h *holding) release() {
	if h.n > 0 {
		h.b.release(h.n)
		h.n = 0
	}
}

// budgetError is the Error of a request the budget refused, nil when err
// was not the budget's.
func (p *Proxy) budgetError(err error) *Error {
	switch {
	case errors.Is(err, errOverBudget):
		return fail(http.StatusRequestEntityTooLarge, diag.ProxyRequestTooLarge, fmt.Sprintf(
			"continuity proxy: the request was not sent: %v (%d bytes, --body-budget)", err, p.budget.total), err).
			logs("request body over the body budget", zap.Int64("budget", p.budget.total))
	case errors.Is(err, errBudgetBusy):
		e := fail(http.StatusServiceUnavailable, diag.ProxyBodyBudgetExhausted, fmt.Sprintf(
			"continuity proxy: the request was not sent: %v for longer than %s (%d bytes, --body-budget); send it again in %d seconds",
			err, p.budget.wait, p.budget.total, retryAfter), err).
			logs("request waited for the body budget in vain", zap.Int64("budget", p.budget.total))
		e.Header = http.Header{"Retry-After": {strconv.Itoa(retryAfter)}}
		return e
	default:
		return nil
	}
}

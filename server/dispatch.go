package server

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/wire"
)

// dispatcher checks every message against the method table and runs it:
// notifications synchronously in the read loop (so they apply in arrival
// order, before any later request), requests on their own goroutines (so a
// handler that calls back into the host never blocks the read loop).
type dispatcher struct {
	methods map[string]method
	stream  replier
	log     *zap.Logger
	// gate holds feature methods until initialize succeeds; notifications
	// that arrive while it runs are held and applied in order once it
	// does (a host bridge may forward events right behind initialize).
	gate initGate
	// base is Serve's context: every request's context derives from it.
	base context.Context
	// quiet holds the plugin's notices while an inline request runs and
	// its reply is written; it returns the release (nil: nothing held).
	quiet func() (release func())

	mu       sync.Mutex
	inflight map[string]*inflight // by wire.ID key
	wg       sync.WaitGroup
}

type inflight struct {
	method    string
	cancel    context.CancelCauseFunc
	cancelled atomic.Bool
}

// replier writes the answers to the host's requests (a *wire.Conn; a
// bare *wire.Stream in tests that drive the dispatcher alone).
type replier interface {
	Reply(id wire.ID, result any) error
	ReplyError(id wire.ID, e *wire.Error) error
}

// Handle implements wire.Handler. It runs in the connection's read loop,
// with the request's id and params as the host's bytes; from then on the
// dispatcher owns the params until their method is done with them.
func (d *dispatcher) Handle(in wire.Request) {
	params := in.Params
	m, known := d.methods[in.Method]
	if !in.IsCall() {
		if !known || !m.flags.has(notification) {
			params.Release()
			d.log.Debug("ignored notification", zap.String("method", in.Method))
			return
		}
		n := heldNote{in.Method, m, params}
		if m.flags.has(early) {
			d.apply(n)
			return
		}
		d.gate.notify(n, d.apply)
		return
	}
	fail := func(code int, msg string) {
		params.Release()
		d.reply(in.ID, nil, &protocolError{code: code, msg: msg})
	}
	switch {
	case !known:
		fail(wire.CodeMethodNotFound, "method not found: "+clip(in.Method))
		return
	case m.flags.has(notification):
		fail(wire.CodeInvalidRequest, in.Method+" is a notification and takes no id")
		return
	case !m.flags.has(early) && !d.gate.open():
		fail(wire.CodeNotInitialized, "not initialized: send initialize first")
		return
	}
	call, err := m.read(params)
	if err != nil {
		params.Release()
		d.reply(in.ID, nil, err)
		return
	}
	if m.flags.has(opens) && !d.gate.begin() {
		fail(wire.CodeInvalidRequest, "initialize is already running")
		return
	}
	if m.flags.has(inline) && len(params.Bytes()) <= inlineBytes {
		d.runInline(in.ID, m, call, params)
		return
	}
	ctx, cancel := context.WithCancelCause(d.base)
	f := &inflight{method: in.Method, cancel: cancel}
	d.mu.Lock()
	if _, dup := d.inflight[in.ID.Key()]; dup {
		d.mu.Unlock()
		cancel(nil)
		if m.flags.has(opens) {
			d.gate.finish(false, d.apply)
		}
		fail(wire.CodeInvalidRequest, "a request with this id is still running")
		return
	}
	d.inflight[in.ID.Key()] = f
	d.wg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.wg.Done()
		result, err := call.run(ctx)
		if m.flags.has(opens) {
			d.gate.finish(err == nil, d.apply)
		}
		d.mu.Lock()
		delete(d.inflight, in.ID.Key())
		d.mu.Unlock()
		cancel(nil)
		if f.cancelled.Load() {
			if err == nil {
				call.cancelled()
			}
			err = errCancelled
		}
		d.reply(in.ID, result, err)
		m.done(params)
		call.replied()
	}()
}

// heldNote is a notification waiting for initialize to finish; it owns
// its params until applied (then its method is done with them: see
// method.done) or dropped.
type heldNote struct {
	method string
	m      method
	params *wire.Params
}

// drop gives up a notification that will never be applied.
func (n heldNote) drop() { n.params.Release() }

// apply reads and applies one notification, in the read loop or, for
// held ones, when initialize finishes; once it is applied its method is
// done with the params (a borrowing one's buffer carries a later frame).
func (d *dispatcher) apply(n heldNote) {
	defer n.m.done(n.params)
	call, err := n.m.read(n.params)
	if err != nil {
		d.log.Warn("invalid notification", zap.String("method", n.method), zap.String("reason", err.Error()))
		return
	}
	_, _ = call.run(d.base)
}

// cancelRequest handles $/cancelRequest from the host (its entry read the
// id, readCancelParams). The id is compared by value, exactly as the
// request's own id was (wire.ID).
func (d *dispatcher) cancelRequest(id wire.ID) {
	d.mu.Lock()
	f := d.inflight[id.Key()]
	d.mu.Unlock()
	if f != nil {
		f.cancelled.Store(true)
		f.cancel(errCancelledByHost)
	}
}

// reply answers a request exactly once, with its id as the host sent it.
func (d *dispatcher) reply(id wire.ID, result any, err error) {
	var werr error
	switch {
	case err != nil:
		e := rpcError(err)
		if e.Code == wire.CodeInternalError {
			d.log.Error("request failed", zap.Error(err))
		}
		werr = d.stream.ReplyError(id, e)
	case result == nil:
		werr = d.stream.Reply(id, struct{}{})
	default:
		werr = d.stream.Reply(id, result)
	}
	if werr != nil {
		d.log.Debug("reply not sent", zap.Error(werr))
	}
}

// wait blocks until every running request has replied or ctx ends. When
// ctx ends first (the exit deadline), it logs how many requests were left
// and their methods: they are cancelled already and will get no reply
// once the process exits.
func (d *dispatcher) wait(ctx context.Context) {
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		if methods := d.running(); len(methods) > 0 {
			d.log.Warn("requests still running at the exit deadline", zap.Int("count", len(methods)), zap.Strings("methods", methods))
		}
	}
}

// running lists the methods of the requests still running, sorted, one
// entry per request.
func (d *dispatcher) running() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	methods := make([]string, 0, len(d.inflight))
	for _, f := range d.inflight {
		methods = append(methods, f.method)
	}
	slices.Sort(methods)
	return methods
}

// cancelAll cancels every running request (at EOF and at shutdown) with
// cause, which a request that fails for it can report instead of whatever
// its cancelled store or host call said (context.Cause).
func (d *dispatcher) cancelAll(cause error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range d.inflight {
		f.cancel(cause)
	}
}

// The causes of a running request's cancellation.
var (
	errInputEnded      = errors.New("the host's input ended (stdin closed) while the request ran")
	errShutdown        = errors.New("the host asked to shut down while the request ran")
	errCancelledByHost = errors.New("the host cancelled the request ($/cancelRequest)")
)

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

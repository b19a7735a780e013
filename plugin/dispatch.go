package plugin

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/wire"
)

// method is one entry of the typed method table. Exactly one of call and
// notify is set. check validates params before dispatch; a failure is -32602
// for requests and a logged drop for notifications.
type method struct {
	check  func(params []byte) error
	call   func(ctx context.Context, params []byte) (any, error)
	notify func(params []byte)
	// early marks methods allowed before initialize completes.
	early bool
	// opens marks initialize: once its params pass the check it holds
	// the gate opening, and its return opens or closes it (initGate).
	opens bool
	// afterReply runs once the reply is written (shutdown uses it to exit
	// only after its answer is flushed).
	afterReply func()
	// onCancel runs when a request is cancelled after its handler already
	// succeeded: the host will send nothing, so effects such as a turn
	// admission must be undone.
	onCancel func(params []byte)
	// recycle says the method keeps no reference to its params once its
	// reply is written, so a large frame's buffer is reused for a later
	// frame (llm/payload: a 1 MiB payload per step would otherwise be a
	// fresh allocation per step).
	recycle bool
}

// releaser is implemented by results that hold wire.Raw values, so a result
// that is replaced by an error does not leave its bytes registered.
type releaser interface{ Release() }

// detacher is implemented by results that still borrow memory from their
// request's params: Detach runs after the reply is written (or replaced by
// an error) and before the params buffer is recycled.
type detacher interface{ Detach() }

// dispatcher checks every message against the method table and runs it:
// notifications synchronously in the read loop (so they apply in arrival
// order, before any later request), requests on their own goroutines (so a
// handler that calls back into the host never blocks the read loop).
type dispatcher struct {
	methods map[string]method
	stream  *wire.Stream
	log     *zap.Logger
	// gate holds feature methods until initialize succeeds; notifications
	// that arrive while it runs are held and applied in order once it
	// does (a host bridge may forward events right behind initialize).
	gate initGate
	// base is Serve's context: every request's context derives from it.
	base context.Context

	mu       sync.Mutex
	inflight map[jsonrpc2.ID]*inflight
	wg       sync.WaitGroup
}

type inflight struct {
	cancel    context.CancelFunc
	cancelled atomic.Bool
}

// Handle implements jsonrpc2.Handler. It runs in the connection's read loop.
func (d *dispatcher) Handle(_ context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	params, release := d.stream.TakeParams(req.Params)
	m, known := d.methods[req.Method]
	if !known || !m.recycle || req.Notif {
		release = func() {}
	}
	if req.Notif {
		if !known || m.notify == nil {
			d.log.Debug("ignored notification", zap.String("method", req.Method))
			return
		}
		n := heldNote{req.Method, m, params}
		if m.early {
			d.apply(n)
			return
		}
		d.gate.notify(n, d.apply)
		return
	}
	fail := func(code int, msg string, data map[string]any) {
		d.reply(conn, req.ID, nil, &protocolError{code: code, msg: msg, data: data})
	}
	switch {
	case !known:
		fail(wire.CodeMethodNotFound, "method not found: "+clip(req.Method), nil)
		return
	case m.call == nil:
		fail(wire.CodeInvalidRequest, req.Method+" is a notification and takes no id", nil)
		return
	case !m.early && !d.gate.open():
		fail(wire.CodeNotInitialized, "not initialized: send initialize first", nil)
		return
	}
	if err := m.check(params); err != nil {
		d.reply(conn, req.ID, nil, err)
		release()
		return
	}
	if m.opens && !d.gate.begin() {
		fail(wire.CodeInvalidRequest, "initialize is already running", nil)
		release()
		return
	}
	ctx, cancel := context.WithCancel(d.base)
	f := &inflight{cancel: cancel}
	d.mu.Lock()
	if _, dup := d.inflight[req.ID]; dup {
		d.mu.Unlock()
		cancel()
		if m.opens {
			d.gate.finish(false, d.apply)
		}
		fail(wire.CodeInvalidRequest, "a request with this id is still running", nil)
		release()
		return
	}
	d.inflight[req.ID] = f
	d.wg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.wg.Done()
		result, err := m.call(ctx, params)
		if m.opens {
			d.gate.finish(err == nil, d.apply)
		}
		d.mu.Lock()
		delete(d.inflight, req.ID)
		d.mu.Unlock()
		cancel()
		if f.cancelled.Load() {
			if err == nil && m.onCancel != nil {
				m.onCancel(params)
			}
			err = errCancelled
		}
		d.reply(conn, req.ID, result, err)
		if r, ok := result.(detacher); ok {
			r.Detach()
		}
		release()
		if m.afterReply != nil {
			m.afterReply()
		}
	}()
}

// apply checks and applies one notification, in the read loop or, for
// held ones, when initialize finishes.
func (d *dispatcher) apply(n heldNote) {
	if err := n.m.check(n.params); err != nil {
		d.log.Warn("invalid notification", zap.String("method", n.method), zap.String("reason", err.Error()))
		return
	}
	n.m.notify(n.params)
}

// cancelRequest handles $/cancelRequest from the host.
func (d *dispatcher) cancelRequest(params []byte) {
	var p struct {
		ID jsonrpc2.ID `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		d.log.Warn("$/cancelRequest not applied", zap.String("reason", err.Error()))
		return
	}
	d.mu.Lock()
	f := d.inflight[p.ID]
	d.mu.Unlock()
	if f != nil {
		f.cancelled.Store(true)
		f.cancel()
	}
}

// reply answers a request exactly once.
func (d *dispatcher) reply(conn *jsonrpc2.Conn, id jsonrpc2.ID, result any, err error) {
	ctx := context.Background()
	if err != nil {
		if r, ok := result.(releaser); ok {
			r.Release()
		}
		e := rpcError(err)
		if e.Code == wire.CodeInternalError {
			d.log.Error("request failed", zap.Error(err))
		}
		var data *json.RawMessage
		if e.Data != nil {
			b, merr := json.Marshal(e.Data)
			if merr != nil {
				d.log.Error("error data not encoded; sent without it", zap.Error(merr))
			} else {
				data = (*json.RawMessage)(&b)
			}
		}
		if werr := conn.ReplyWithError(ctx, id, &jsonrpc2.Error{Code: int64(e.Code), Message: e.Message, Data: data}); werr != nil {
			d.log.Debug("reply not sent", zap.Error(werr))
		}
		return
	}
	if result == nil {
		result = struct{}{}
	}
	if werr := conn.Reply(ctx, id, result); werr != nil {
		if r, ok := result.(releaser); ok {
			r.Release()
		}
		d.log.Debug("reply not sent", zap.Error(werr))
	}
}

// wait blocks until every running request has replied or ctx ends.
func (d *dispatcher) wait(ctx context.Context) {
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// cancelAll cancels every running request (used at EOF).
func (d *dispatcher) cancelAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range d.inflight {
		f.cancel()
	}
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

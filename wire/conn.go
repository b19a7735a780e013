package wire

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"
)

// Handler receives every request and notification of the host, in the
// connection's read loop, one at a time and in the order the host sent
// them: a notification it applies before returning takes effect before
// any later frame is looked at. It owns req.Params from then on (release
// or keep them), and answers a request (req.IsCall) exactly once, with
// Conn.Reply or Conn.ReplyError, from wherever it likes. A handler that
// may block (a call back into the host) must run on its own goroutine:
// while it runs nothing else is read.
type Handler interface {
	Handle(req Request)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(req Request)

// Handle calls f.
func (f HandlerFunc) Handle(req Request) { f(req) }

// Config configures a Conn.
type Config struct {
	In            io.Reader
	Out           io.Writer
	Closer        io.Closer // closed by Close; may be nil
	MaxFrameBytes int64     // ≤ 0: DefaultMaxFrameBytes
	Log           *zap.Logger
	// BeforeEOF runs once in the read loop when input ends, before
	// pending calls of ours fail and Done is closed: the owner lets
	// running requests write their replies first.
	BeforeEOF func()
	// OnLostFrame runs in the read loop each time a line is answered with
	// a null id (see Stream.OnLostFrame).
	OnLostFrame func()
	// Follow, when set, is offered each request frame while it arrives
	// (see FollowFunc), once FollowFrom of its bytes have arrived in one
	// buffer (0: as soon as its prefix shows the method and the params).
	Follow     FollowFunc
	FollowFrom int
}

// cancelWithin bounds how long a $/cancelRequest waits for the pipe: it
// is a courtesy to the host, and a host that reads nothing would hold it
// forever.
const cancelWithin = time.Second

// Conn is one JSON-RPC connection to the host over NDJSON, and the only
// place that touches github.com/sourcegraph/jsonrpc2: the library's read
// loop reads frames through the Stream and calls the handler; the Stream
// hands the request's id and params to it as the host's bytes; our own
// calls and notifications are written by the Stream and their answers
// delivered to them by the read loop, never decoded by the library.
//
// Its life: NewConn wires everything and reads nothing; Start opens the
// read loop (so a handler that needs what the owner builds around the
// Conn, like a host client using Call, finds it); Done is closed when
// input ends; Close stops it, and once Close has returned the handler is
// never called again; Wait waits until nothing of it runs.
type Conn struct {
	stream  *Stream
	rpc     *jsonrpc2.Conn
	handler Handler
	log     *zap.Logger

	open     chan struct{} // closed by Start or Close: the read loop may read
	closedCh chan struct{} // closed by Close
	openOnce sync.Once
	ended    chan struct{} // closed when input ended or Close was called
	endOnce  sync.Once
	stopped  chan struct{} // closed when the read loop reads no more
	stopOnce sync.Once
	seq      atomic.Uint64

	mu sync.Mutex
	// closed: Close was called; no handler call starts any more, and
	// sending fails. shut: input ended or Close was called; pending calls
	// of ours have failed and new ones fail at once.
	closed, shut bool
	// busy: a handler call runs; idle is closed when it returns.
	busy bool
	idle chan struct{}
	// cancels are our $/cancelRequest notes still being written.
	cancels sync.WaitGroup
}

// NewConn returns a Conn over cfg's pipe that calls h. It reads nothing
// until Start.
func NewConn(cfg Config, h Handler) *Conn {
	log := cfg.Log
	if log == nil {
		log = zap.NewNop()
	}
	c := &Conn{handler: h, log: log, open: make(chan struct{}), closedCh: make(chan struct{}), ended: make(chan struct{}), stopped: make(chan struct{})}
	c.stream = NewStream(cfg.In, cfg.Out, cfg.Closer, cfg.MaxFrameBytes, log)
	c.stream.OnLostFrame = cfg.OnLostFrame
	c.stream.frames.follow, c.stream.frames.followFrom = cfg.Follow, cfg.FollowFrom
	c.stream.BeforeEOF = func() {
		if cfg.BeforeEOF != nil && !c.isClosed() {
			cfg.BeforeEOF()
		}
		c.shutDown()
	}
	c.rpc = jsonrpc2.NewConn(context.Background(), gatedStream{c}, libraryHandler{c}, jsonrpc2.SetLogger(zapPrinter{log}))
	go func() {
		<-c.rpc.DisconnectNotify()
		c.shutDown()
	}()
	return c
}

// Start opens the read loop. Call it once everything the handler reads
// is in place.
func (c *Conn) Start() { c.openOnce.Do(func() { close(c.open) }) }

// Done is closed once input has ended (or the Conn is closed) and the
// read loop has stopped: no frame of the host's is read any more.
func (c *Conn) Done() <-chan struct{} { return c.rpc.DisconnectNotify() }

// Reply answers the request with the id (see Stream.Reply).
func (c *Conn) Reply(id ID, result any) error { return c.stream.Reply(id, result) }

// ReplyError answers the request with the id with an error.
func (c *Conn) ReplyError(id ID, e *Error) error { return c.stream.ReplyError(id, e) }

// InFlight returns the bytes held for the host now and the most held at
// once so far.
func (c *Conn) InFlight() (now, peak int64) { return c.stream.InFlight() }

// Notify sends a notification to the host. It waits for the pipe however
// long the host takes to read, as every reply does: ctx is for the
// interface's sake, and a notice is never dropped because the request
// that emits it was cancelled.
func (c *Conn) Notify(_ context.Context, method string, params any) error {
	return c.notify(context.Background(), method, params)
}

// notify sends a notification, giving up when ctx ends before the pipe is
// free.
func (c *Conn) notify(ctx context.Context, method string, params any) error {
	if c.isShut() {
		return ErrClosed
	}
	return c.stream.writeRequest(ctx, "", method, params)
}

// Call sends a request to the host and waits for its answer: the result's
// bytes, owned by the caller until it releases or keeps them, or the
// host's *RemoteError. When ctx ends first the call is retired at once —
// an answer that comes later is dropped — and the host is told with
// $/cancelRequest, which is sent on its own, within cancelWithin, so the
// caller never waits for a host that does not read.
func (c *Conn) Call(ctx context.Context, method string, params any) (*Params, error) {
	if c.isShut() {
		return nil, ErrClosed
	}
	id := fmt.Sprintf("cty_%x", c.seq.Add(1))
	call := c.stream.await(id)
	if err := c.stream.writeRequest(ctx, id, method, params); err != nil {
		call.forget()
		return nil, err
	}
	call.markSent()
	select {
	case <-call.answered:
		return call.take()
	case <-ctx.Done():
		call.forget()
		c.cancelLater(id, method)
		return nil, ctx.Err()
	case <-c.ended:
		call.forget()
		return nil, ErrClosed
	}
}

// cancelLater sends $/cancelRequest for the call with the id on a
// goroutine of the Conn's (Wait waits for it), giving up when the pipe is
// not free within cancelWithin.
func (c *Conn) cancelLater(id, method string) {
	c.cancels.Add(1)
	go func() {
		defer c.cancels.Done()
		ctx, cancel := context.WithTimeout(context.Background(), cancelWithin)
		defer cancel()
		if err := c.notify(ctx, "$/cancelRequest", map[string]string{"id": id}); err != nil {
			c.log.Warn("cancellation not sent to the host", zap.String("method", method), zap.String("id", id), zap.Error(err))
		}
	}()
}

// Close stops the connection: once it returns the handler is never called
// again, a handler call already running finishes on its own (Wait waits
// for it), our pending calls fail with ErrClosed, and the Stream's closer
// is closed. The library's read loop goes on reading the input only to
// drop it, unlooked-at, until it ends.
func (c *Conn) Close() error {
	c.mu.Lock()
	already := c.closed
	c.closed = true
	c.stream.closed.Store(true)
	c.mu.Unlock()
	if already {
		return ErrClosed
	}
	close(c.closedCh)
	c.Start() // a read loop never started ends at once
	c.shutDown()
	err := c.rpc.Close()
	if err == jsonrpc2.ErrClosed {
		err = nil // input had ended already
	}
	return err
}

// Wait returns once nothing of the Conn runs — the read loop has stopped
// (input ended), or the Conn is closed and no handler call is running —
// and no $/cancelRequest is still being written; or when ctx ends, with
// its error.
func (c *Conn) Wait(ctx context.Context) error {
	for {
		c.mu.Lock()
		busy, idle, closed := c.busy, c.idle, c.closed
		c.mu.Unlock()
		if !busy && closed {
			break
		}
		wake := c.closedCh
		if busy {
			wake = idle
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
			continue
		case <-c.stopped:
		}
		if !busy {
			break
		}
	}
	done := make(chan struct{})
	go func() { c.cancels.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func (c *Conn) isShut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shut
}

// shutDown fails our pending calls: no answer can come any more.
func (c *Conn) shutDown() {
	c.mu.Lock()
	c.shut = true
	c.mu.Unlock()
	c.endOnce.Do(func() { close(c.ended) })
}

// loopStopped records that the read loop reads no more.
func (c *Conn) loopStopped() { c.stopOnce.Do(func() { close(c.stopped) }) }

// dispatch calls the handler with req unless the Conn is closed, marking
// the call as running so that Close's promise holds and Wait can wait.
func (c *Conn) dispatch(req Request) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		req.Params.Release()
		return
	}
	c.busy = true
	c.idle = make(chan struct{})
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.busy = false
		close(c.idle)
		c.idle = nil
		c.mu.Unlock()
	}()
	c.handler.Handle(req)
}

// gatedStream is the Stream as the library reads it: nothing is read
// before Start, and nothing after Close.
type gatedStream struct{ c *Conn }

func (g gatedStream) ReadObject(v any) error {
	<-g.c.open
	if g.c.isClosed() {
		// Nothing is dispatched any more; what the host still writes is
		// read and dropped unlooked-at until its input ends, so a host
		// writing after shutdown is never stuck on a full pipe.
		err := g.c.stream.discardRest()
		g.c.loopStopped()
		return err
	}
	err := g.c.stream.ReadObject(v)
	if err != nil {
		g.c.loopStopped()
	}
	return err
}

func (g gatedStream) WriteObject(v any) error { return g.c.stream.WriteObject(v) }
func (g gatedStream) Close() error            { return g.c.stream.Close() }

// libraryHandler takes the request the Stream just delivered — its id and
// params as the host's bytes — and gives it to the Conn's handler with
// the method the library decoded.
type libraryHandler struct{ c *Conn }

func (h libraryHandler) Handle(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) {
	req := h.c.stream.takeRequest()
	req.Method = r.Method
	h.c.dispatch(req)
}

// zapPrinter routes the library's log lines to zap.
type zapPrinter struct{ log *zap.Logger }

func (z zapPrinter) Printf(format string, v ...any) { z.log.Sugar().Debugf(format, v...) }

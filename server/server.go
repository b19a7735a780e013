// Package server is the continuity plugin process (`continuity serve`): it
// serves docs/protocol.md over a pipe, checks every message against a typed
// method table, and routes host events and requests to the feature packages
// (filter, settings, remote, continuation, boundary) through the turn
// lifecycle. It is not named plugin, which would shadow the standard
// library's package of that name.
package server

import (
	"context"
	"io"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/wire"
)

// Version is the plugin version reported in initialize.
const Version = "0.1.0"

// ProtocolVersion is the only wire protocol version this plugin speaks.
const ProtocolVersion = "1"

// Config configures one plugin process.
type Config struct {
	In            io.Reader
	Out           io.Writer
	DataDir       string // --data-dir; initialize's dataDir wins when given
	MaxFrameBytes int64
	// ProjectionBudget is a successor's first-context budget in estimated
	// tokens (0: the continuation package's default).
	ProjectionBudget int
	Log              *zap.Logger
	Now              func() time.Time
}

// ExitWithin is the promise to hosts: once stdin ends or shutdown is
// answered, the process exits within this time, whatever still runs.
const ExitWithin = 2 * time.Second

// drainBudget is the part of ExitWithin that running requests and the
// background queues share to finish (requests are cancelled first); the
// rest covers closing the store and the process exit itself.
const drainBudget = ExitWithin * 3 / 4

// Server is one connection's worth of plugin state.
type Server struct {
	cfg  Config
	log  *zap.Logger
	conn *wire.Conn
	disp *dispatcher
	host *hostapi.Client
	// base is Serve's context; requests and background queues derive
	// their contexts from it, so its end stops them all.
	base context.Context

	shutdownOnce sync.Once
	shutdown     chan struct{}

	// exit is the one deadline of the exit: set when input ends or
	// shutdown is requested, whichever comes first, and shared by every
	// wait that follows, so the waits cannot add up past ExitWithin.
	exitOnce sync.Once
	exit     time.Time

	mu       sync.Mutex
	services *services // set once initialize succeeds
}

// Serve runs the plugin until the host closes stdin or sends shutdown, then
// returns after in-flight requests finish, within ExitWithin. Nothing ends
// it with an error: bad input is answered on the wire and failures of the
// features are reported to the host (activation, envelopes) and logged.
//
// Everything a handler reads (the connection, the host client, the method
// table) is wired before the first byte is read: the connection starts
// reading at Start, after the assignments below. Once Serve returns, no
// frame of the host's is dispatched any more (wire.Conn.Close).
func Serve(ctx context.Context, cfg Config) {
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Server{cfg: cfg, log: cfg.Log, base: ctx, shutdown: make(chan struct{})}
	s.disp = &dispatcher{log: cfg.Log, base: ctx, inflight: map[string]*inflight{}}
	s.disp.gate.log = cfg.Log
	s.disp.methods = s.methodTable()
	s.disp.quiet = s.holdNotices
	s.conn = wire.NewConn(wire.Config{
		In: cfg.In, Out: cfg.Out, MaxFrameBytes: cfg.MaxFrameBytes, Log: cfg.Log,
		BeforeEOF: func() {
			// The host has stopped writing: nothing it could still answer
			// will arrive, so running requests are cancelled and get what
			// is left of the drain budget to write their replies before
			// the connection closes.
			s.disp.cancelAll(errInputEnded)
			s.drain(s.disp.wait)
		},
		OnLostFrame: s.frameLost,
		Follow:      followPayload,
		FollowFrom:  followFrom,
	}, s.disp)
	s.disp.stream = s.conn
	s.host = hostapi.NewClient(&hostCaller{conn: s.conn, log: s.log})
	s.conn.Start()

	cause := errInputEnded
	select {
	case <-s.conn.Done():
		s.log.Info("stdin closed")
	case <-s.shutdown:
		s.log.Info("shutdown requested")
		cause = errShutdown
	case <-ctx.Done():
		cause = context.Cause(ctx)
	}
	s.disp.cancelAll(cause)
	s.drain(s.disp.wait)
	// From here no frame of the host's is dispatched; a handler call
	// running in the read loop gets what is left of the budget to end.
	_ = s.conn.Close()
	s.drain(func(ctx context.Context) {
		if err := s.conn.Wait(ctx); err != nil {
			s.log.Warn("the connection was still busy at the exit deadline")
		}
	})
	s.drain(s.closeServices)
}

// drain runs wait with a context that ends at the exit deadline, which the
// first call fixes.
func (s *Server) drain(wait func(context.Context)) {
	s.exitOnce.Do(func() { s.exit = time.Now().Add(drainBudget) })
	ctx, cancel := context.WithDeadline(context.Background(), s.exit)
	defer cancel()
	wait(ctx)
}

// holdNotices holds the turn notices while an inline request is answered
// (runInline); before initialize there are none to hold.
func (s *Server) holdNotices() (release func()) {
	if svc := s.svc(); svc != nil {
		return svc.turns.HoldNotices()
	}
	return func() {}
}

// Package plugin is the continuity process: it serves PROTOCOL.md over a
// pipe, checks every message against a typed method table, and routes host
// events and requests to the feature packages (filter, settings, remote,
// continuation, boundary) through the turn lifecycle.
package plugin

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
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

// Server is one connection's worth of plugin state.
type Server struct {
	cfg    Config
	log    *zap.Logger
	stream *wire.Stream
	conn   *jsonrpc2.Conn
	disp   *dispatcher
	host   *hostapi.Client

	shutdownOnce sync.Once
	shutdown     chan struct{}

	mu       sync.Mutex
	services *services // set once initialize succeeds
}

// Serve runs the plugin until the host closes stdin or sends shutdown, then
// returns after in-flight requests finish (bounded so exit stays under 2 s).
func Serve(ctx context.Context, cfg Config) error {
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Server{cfg: cfg, log: cfg.Log, shutdown: make(chan struct{})}
	s.stream = wire.NewStream(cfg.In, cfg.Out, nil, cfg.MaxFrameBytes, cfg.Log)
	s.disp = &dispatcher{stream: s.stream, log: cfg.Log, base: ctx, inflight: map[string]*inflight{}}
	s.disp.methods = s.methodTable()
	s.stream.BeforeEOF = func() {
		// The host has stopped writing: nothing it could still answer will
		// arrive, so running requests are cancelled and get a moment to
		// write their replies before the connection closes.
		s.disp.cancelAll()
		wctx, wcancel := context.WithTimeout(context.Background(), time.Second)
		s.disp.wait(wctx)
		wcancel()
	}
	s.conn = jsonrpc2.NewConn(ctx, s.stream, s.disp, jsonrpc2.SetLogger(zapPrinter{cfg.Log}))
	s.host = hostapi.NewClient(&hostCaller{conn: s.conn, stream: s.stream})

	select {
	case <-s.conn.DisconnectNotify():
		s.log.Info("stdin closed")
	case <-s.shutdown:
		s.log.Info("shutdown requested")
	case <-ctx.Done():
	}
	s.disp.cancelAll()
	wctx, wcancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	s.disp.wait(wctx)
	wcancel()
	s.closeServices()
	return nil
}

// zapPrinter routes the jsonrpc2 library's log lines to zap.
type zapPrinter struct{ log *zap.Logger }

func (z zapPrinter) Printf(format string, v ...any) { z.log.Sugar().Debugf(format, v...) }

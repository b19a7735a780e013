package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/continuity-dev/continuity/server"
	"github.com/continuity-dev/continuity/wire"
)

func version() string {
	return "continuity " + server.Version + " (protocol " + server.ProtocolVersion + ")"
}

// serve runs the plugin over stdio. stdout belongs to the protocol: the real
// stdout is taken for frames and os.Stdout is pointed at stderr so that no
// stray print can corrupt a frame. SIGINT is ignored: the host owns the
// process's life and ends it by closing stdin or sending shutdown.
func serve(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "", "data directory (default: initialize's dataDir, else the user state directory's continuity/)")
	maxFrame := fs.Int64("max-frame-bytes", wire.DefaultMaxFrameBytes, "largest accepted frame in bytes")
	level := fs.String("log-level", "info", "log level: debug, info, warn, error")
	budget := fs.Int("projection-budget", 0, "a successor session's first-context budget in estimated tokens (0: 24000)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "continuity serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *budget < 0 {
		fmt.Fprintln(os.Stderr, "continuity serve: --projection-budget must not be negative")
		return 2
	}
	if *maxFrame <= 0 {
		fmt.Fprintln(os.Stderr, "continuity serve: --max-frame-bytes must be positive")
		return 2
	}
	lvl, err := zapcore.ParseLevel(*level)
	if err != nil {
		fmt.Fprintf(os.Stderr, "continuity serve: %v\n", err)
		return 2
	}
	log := newLogger(lvl)
	defer log.Sync()

	frames := os.Stdout
	os.Stdout = os.Stderr
	widenPipes(os.Stdin, frames)
	// SIGPIPE too: a host that stops reading must turn replies into write
	// errors (and a clean exit at EOF), not kill the process.
	signal.Ignore(syscall.SIGINT, syscall.SIGPIPE)

	server.Serve(context.Background(), server.Config{
		In:               os.Stdin,
		Out:              frames,
		DataDir:          *dataDir,
		MaxFrameBytes:    *maxFrame,
		ProjectionBudget: *budget,
		Log:              log,
	})
	return 0
}

// newLogger writes JSON lines to stderr.
func newLogger(lvl zapcore.Level) *zap.Logger {
	enc := zap.NewProductionEncoderConfig()
	enc.TimeKey = "time"
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(os.Stderr), lvl)
	return zap.New(core).With(zap.String("component", "continuity"))
}

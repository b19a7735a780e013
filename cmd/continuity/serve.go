package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/continuity-dev/continuity/server"
	"github.com/continuity-dev/continuity/wire"
)

// serve runs the plugin over stdio. stdout belongs to the protocol: the real
// stdout is taken for frames and os.Stdout is pointed at stderr so that no
// stray print can corrupt a frame. SIGINT is ignored: the host owns the
// process's life and ends it by closing stdin or sending shutdown.
func serve(args []string) int {
	c := newCommand("serve")
	dataDir := c.String("data-dir", "", "data directory (default: initialize's dataDir, else the user state directory's continuity/)")
	maxFrame := c.Int64("max-frame-bytes", wire.DefaultMaxFrameBytes, "largest accepted frame in bytes")
	level := c.logLevel()
	budget := c.Int("projection-budget", 0, "a successor session's first-context budget in estimated tokens (0: 24000)")
	if code, ok := c.parse(args, 0); !ok {
		return code
	}
	if *budget < 0 {
		return c.fail(2, "--projection-budget must not be negative")
	}
	if *maxFrame <= 0 {
		return c.fail(2, "--max-frame-bytes must be positive")
	}
	lvl, err := level()
	if err != nil {
		return c.fail(2, "%v", err)
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

package main

import (
	"fmt"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// logFormat registers --log-format and returns a constructor of the
// command's logger: JSON lines for machines (the default when stderr is a
// file or a pipe), one readable line per event for a person at a terminal.
func (c command) logFormat() func(zapcore.Level) (*zap.Logger, error) {
	format := c.String("log-format", "auto", "log lines on stderr: text, json, or auto (text on a terminal, json otherwise)")
	return func(lvl zapcore.Level) (*zap.Logger, error) {
		switch *format {
		case "json":
			return newLogger(lvl), nil
		case "text":
			return newTextLogger(lvl), nil
		case "auto":
			if isTerminal(os.Stderr) {
				return newTextLogger(lvl), nil
			}
			return newLogger(lvl), nil
		}
		return nil, fmt.Errorf("--log-format must be text, json or auto, not %q", *format)
	}
}

// newTextLogger writes one line per event: time, level, message, then the
// fields as key=value — what zap's console encoder prints.
func newTextLogger(lvl zapcore.Level) *zap.Logger {
	enc := zap.NewDevelopmentEncoderConfig()
	enc.EncodeTime = zapcore.TimeEncoderOfLayout("15:04:05")
	enc.CallerKey, enc.StacktraceKey, enc.NameKey = "", "", ""
	enc.ConsoleSeparator = "  "
	return zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.Lock(os.Stderr), lvl))
}

// isTerminal reports whether f is a character device, which a terminal
// is and a file or a pipe is not (on every OS the binary is built for).
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

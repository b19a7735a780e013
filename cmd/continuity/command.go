package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"go.uber.org/zap/zapcore"

	"github.com/continuity-dev/continuity/server"
)

// command is one subcommand's flag set with what every subcommand shares:
// its messages start with "continuity NAME: ", asking for help is not an
// error, and the flags two commands both take (--data-dir, --log-level)
// mean the same in each.
type command struct {
	*flag.FlagSet
	name string
}

func newCommand(name string) command {
	c := command{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), name: name}
	c.Usage = c.usage
	return c
}

// fail prints a message naming the command on stderr and returns code.
func (c command) fail(code int, format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "continuity "+c.name+": "+format+"\n", a...)
	return code
}

// parse parses args, allowing at most maxArgs positional arguments. When
// it returns false the command must exit with code: 0 after -h (the flag
// package printed the usage), 2 after a usage error, already printed.
func (c command) parse(args []string, maxArgs int) (code int, ok bool) {
	if err := c.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0, false
	} else if err != nil {
		return 2, false
	}
	if c.NArg() > maxArgs {
		return c.fail(2, "unexpected argument %q", c.Arg(maxArgs)), false
	}
	return 0, true
}

// dataDir registers --data-dir and returns the directory the command uses:
// the flag's, else the plugin's own default, so the proxy, the policy
// command and the plugin meet in one store unless told otherwise.
func (c command) dataDir(usage string) func() string {
	dir := c.String("data-dir", "", usage)
	return func() string {
		if *dir == "" {
			return server.DefaultDataDir()
		}
		return *dir
	}
}

// logLevel registers --log-level and returns its parsed value.
func (c command) logLevel() func() (zapcore.Level, error) {
	level := c.String("log-level", "info", "log level: debug, info, warn, error")
	return func() (zapcore.Level, error) { return zapcore.ParseLevel(*level) }
}

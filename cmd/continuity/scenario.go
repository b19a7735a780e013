package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/continuity-dev/continuity/fixtures/scenario"
)

const scenarioUsage = `usage: continuity scenario <run|validate> [flags] FILE

  run       play the scenario file against this binary (host double + supplier double)
  validate  check the file against the scenario schema without running it

flags for run:
  --bypass       send every request without continuity, to see what the supplier does to it
  --binary PATH  the plugin executable to drive (default: this continuity binary)
  --log          copy the plugin's JSON log lines to stderr
`

// scenarioCmd runs or validates a host team's own scenario file.
func scenarioCmd(args []string) int {
	switch {
	case len(args) > 0 && (args[0] == "-h" || args[0] == "--help"):
		fmt.Fprint(os.Stderr, scenarioUsage)
		return 0
	case len(args) == 0:
		fmt.Fprint(os.Stderr, scenarioUsage)
		return 2
	case args[0] != "run" && args[0] != "validate":
		fmt.Fprintf(os.Stderr, "continuity scenario: unknown subcommand %q\n\n%s", args[0], scenarioUsage)
		return 2
	}
	sub, args := args[0], args[1:]
	c := newCommand("scenario " + sub)
	bypass := c.Bool("bypass", false, "send every request without continuity")
	logs := c.Bool("log", false, "copy the plugin's log to stderr")
	binary := c.String("binary", "", "the plugin executable (default: this binary)")
	if code, ok := c.parse(args, 1); !ok {
		return code
	}
	if c.NArg() != 1 {
		return c.fail(2, "which scenario file?\n\n%s", scenarioUsage)
	}
	file := c.Arg(0)
	b, err := os.ReadFile(file)
	if err != nil {
		return c.fail(2, "%v", err)
	}
	sc, err := scenario.Parse(file, b)
	if err != nil {
		return c.fail(2, "%v", err)
	}
	if sub == "validate" {
		fmt.Printf("%s: scenario %s is valid (%d steps)\n", file, sc.Name, len(sc.Steps))
		return 0
	}
	return play(os.Stdout, sc, *binary, *bypass, *logs)
}

// play runs sc against binary ("" means this very binary) with its serve
// command as the host double's child, and prints each step as it
// completes; the exit code is 0 only if every expectation held.
func play(w io.Writer, sc *scenario.Scenario, binary string, bypass, logs bool) int {
	self := binary
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			fmt.Fprintf(os.Stderr, "continuity: cannot find this executable: %v\n", err)
			return 1
		}
	}
	settings := "embedded settings"
	if sc.Settings == scenario.SettingsHost {
		settings = "the host double's settings"
	}
	format, err := sc.DSHFormat()
	if err != nil {
		fmt.Fprintf(os.Stderr, "continuity: %v\n", err)
		return 1
	}
	fmt.Fprintf(w, "scenario %s — %s\n", sc.Name, sc.Description)
	fmt.Fprintf(w, "host double (DeepSeek Harness session events, format %d) → %s serve (%s) · supplier double on loopback with accounts %s\n\n",
		format, self, settings, strings.Join(sc.Accounts, ", "))
	opt := scenario.Options{Binary: self, Bypass: bypass, Observe: func(rec scenario.Record) { scenario.Print(w, rec) }}
	if logs {
		opt.Stderr = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := scenario.Run(ctx, sc, opt)
	if rep != nil {
		fmt.Fprintf(w, "\n%s\n", scenario.Summary(rep))
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "continuity: interrupted")
		} else {
			fmt.Fprintf(os.Stderr, "continuity: the scenario could not finish: %v\n", err)
		}
		return 1
	}
	if !rep.Passed() {
		return 1
	}
	return 0
}

package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/continuity-dev/continuity/clientconfig"
	"github.com/continuity-dev/continuity/instance"
)

// upstreamList is a repeatable --upstream.
type upstreamList []string

func (u *upstreamList) String() string     { return strings.Join(*u, ",") }
func (u *upstreamList) Set(v string) error { *u = append(*u, v); return nil }

// runCmd runs `continuity run codex|opencode [ARGS…]`: the client, pointed
// at the data directory's proxy for this run only (its configuration file
// is not touched), with the proxy started first when none runs.
//
// The proxy a run starts is a background process of its own (its own
// session, so Ctrl-C in one terminal does not take it from a client in
// another) that stops by itself once the last `continuity run` on the data
// directory has ended: a person who only ever uses run is left with no
// process they did not ask for, and two runs at once share one proxy. A
// proxy started by hand (`continuity proxy`) is reused and left running.
// When no proxy answers, the client is not started: a silent direct
// connection is the failure continuity exists to prevent.
func runCmd(args []string) int {
	c := newCommand("run")
	var upstreams upstreamList
	c.Var(&upstreams, "upstream", "the supplier's base URL for a proxy this run starts (default: the last one used with this data directory)")
	listen := c.String("listen", defaultListen, "address for a proxy this run starts")
	dataDir := c.dataDir("data directory (default: the user state directory's continuity/)")
	envKey := c.String("env-key", "", "codex: the environment variable holding the API key (default: Codex's own sign-in)")
	provider := c.String("provider", "openai", "opencode: the provider whose base URL moves to the proxy")
	if err := c.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	if c.NArg() == 0 {
		return c.fail(2, "missing the client to run: codex or opencode")
	}
	client, clientArgs := c.Arg(0), c.Args()[1:]
	if client != "codex" && client != "opencode" {
		return c.fail(2, "unknown client %q: codex or opencode (pi: continuity configure pi, or the extension in integrations/pi)", client)
	}
	bin, err := exec.LookPath(client)
	if err != nil {
		return c.fail(127, "%s is not on PATH (%v); install it first", client, err)
	}
	dir := dataDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return c.fail(1, "data directory: %v", err)
	}
	run, err := instance.BeginRun(dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	defer run.End()
	rec, err := ensureProxy(dir, upstreams, *listen)
	if err != nil {
		return c.fail(1, "%v; %s was not started", err, client)
	}
	s := clientconfig.Settings{ProxyURL: rec.URL, EnvKey: *envKey, Provider: *provider}
	cmd := exec.Command(bin, clientArgs...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	switch client {
	case "codex":
		cmd.Args = append(append([]string{bin}, clientconfig.CodexOverrides(s)...), clientArgs...)
	case "opencode":
		content, err := clientconfig.OpencodeContent(os.Getenv("OPENCODE_CONFIG_CONTENT"), s)
		if err != nil {
			return c.fail(1, "%v; %s was not started", err, client)
		}
		cmd.Env = append(cmd.Env, "OPENCODE_CONFIG_CONTENT="+content)
	}
	return c.runClient(cmd)
}

// runClient runs the client in the foreground and returns its exit status.
// The terminal's Ctrl-C reaches the client directly (it is in the same
// process group), so run only keeps it from ending run first; SIGTERM is
// passed on.
func (c command) runClient(cmd *exec.Cmd) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return c.fail(1, "%v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // owned by the select below
	for {
		select {
		case sig := <-sigs:
			if sig != os.Interrupt {
				_ = cmd.Process.Signal(sig)
			}
		case err := <-done:
			var exit *exec.ExitError
			switch {
			case err == nil:
				return 0
			case errors.As(err, &exit):
				if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return 128 + int(ws.Signal())
				}
				return exit.ExitCode()
			default:
				return c.fail(1, "%v", err)
			}
		}
	}
}

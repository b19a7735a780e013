package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

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
	c.Usage = func() {
		fmt.Fprint(c.Output(), `usage: continuity run [flags] codex|opencode [ARGS...]

Runs the client through the data directory's proxy, starting one if none
runs; ARGS go to the client. The client's configuration files are not
changed. A proxy started here stops after the last continuity run ends.

examples:
  continuity run --upstream https://api.openai.com codex
  continuity run codex exec "fix the failing test"
  continuity run opencode run "explain this repository"

flags:
`)
		c.PrintDefaults()
	}
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

// ensureProxy returns the running registered proxy of dir, starting one
// with upstreams (else the last ones recorded) on listen when none runs,
// once it answers.
func ensureProxy(dir string, upstreams []string, listen string) (instance.Record, error) {
	release, err := instance.Starting(dir)
	if err != nil {
		return instance.Record{}, err
	}
	defer release()
	rec, running, err := instance.Find(dir)
	if err != nil {
		return rec, err
	}
	if running {
		if len(upstreams) > 0 && !slices.Equal(upstreams, rec.Upstreams) {
			return rec, fmt.Errorf("the proxy running for %s (pid %d, %s) forwards to %s, not %s; stop it first or leave out --upstream",
				dir, rec.PID, rec.URL, redactAll(rec.Upstreams), redactAll(upstreams))
		}
		if err := waitAnswering(dir, nil, 0, 10*time.Second); err != nil {
			return rec, err
		}
		fmt.Fprintf(os.Stderr, "continuity run: using the proxy running at %s → %s (pid %d)\n", rec.URL, redactAll(rec.Upstreams), rec.PID)
		return rec, nil
	}
	if len(upstreams) == 0 {
		last, err := instance.Last(dir)
		if err != nil || len(last.Upstreams) == 0 {
			return rec, errors.New("--upstream is required: no proxy has run with this data directory yet (e.g. --upstream https://api.openai.com)")
		}
		upstreams = last.Upstreams
	}
	return startProxy(dir, upstreams, listen)
}

// startProxy starts `continuity proxy --while-runs` in the background,
// logging to the data directory's proxy.log, and waits until it answers;
// when it exits first, the error is what it said.
func startProxy(dir string, upstreams []string, listen string) (instance.Record, error) {
	self, err := os.Executable()
	if err != nil {
		return instance.Record{}, err
	}
	logPath := filepath.Join(dir, "proxy.log")
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return instance.Record{}, err
	}
	defer log.Close()
	info, err := log.Stat()
	if err != nil {
		return instance.Record{}, err
	}
	args := []string{"proxy", "--data-dir", dir, "--listen", listen, "--while-runs"}
	for _, u := range upstreams {
		args = append(args, "--upstream", u)
	}
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = log, log
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return instance.Record{}, fmt.Errorf("starting the proxy: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }() // reaps the proxy if it exits while run does
	if err := waitAnswering(dir, exited, cmd.Process.Pid, 20*time.Second); err != nil {
		if errors.Is(err, errProxyExited) {
			return instance.Record{}, fmt.Errorf("the proxy could not start: %s (log: %s)", logSince(logPath, info.Size()), logPath)
		}
		_ = cmd.Process.Kill()
		return instance.Record{}, err
	}
	rec, _, err := instance.Find(dir)
	fmt.Fprintf(os.Stderr, "continuity run: started the proxy at %s → %s (pid %d); it stops after the last continuity run; log: %s\n",
		rec.URL, redactAll(rec.Upstreams), rec.PID, logPath)
	for _, line := range strings.Split(logSince(logPath, info.Size()), "\n") {
		if strings.HasPrefix(line, "status page: ") {
			fmt.Fprintln(os.Stderr, "continuity run: "+line)
		}
	}
	return rec, err
}

var errProxyExited = errors.New("the proxy exited")

// waitAnswering waits until dir's registered proxy (pid, when not 0) has
// published its address and answers there.
func waitAnswering(dir string, exited <-chan struct{}, pid int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-exited:
			return errProxyExited
		default:
		}
		rec, running, err := instance.Find(dir)
		if err != nil {
			return err
		}
		if running && rec.URL != "" && (pid == 0 || rec.PID == pid) {
			if resp, err := client.Get(rec.URL + "/"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			if running {
				return fmt.Errorf("the proxy of %s (pid %d, %s) does not answer; stop it (kill %d) and try again", dir, rec.PID, rec.URL, rec.PID)
			}
			return fmt.Errorf("the proxy did not start within %s", limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// logSince is what the proxy wrote to its log after offset: its reason.
func logSince(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log)"
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return "(no log)"
	}
	b, _ := io.ReadAll(io.LimitReader(f, 4096))
	return strings.TrimSpace(string(b))
}

// redactAll names upstreams without a password their URLs may carry.
func redactAll(upstreams []string) string {
	out := make([]string, len(upstreams))
	for i, u := range upstreams {
		name, rest, named := strings.Cut(u, "=")
		if !named || strings.Contains(name, ":") {
			name, rest = "", u
		}
		if p, err := url.Parse(rest); err == nil {
			rest = p.Redacted()
		}
		if name != "" {
			rest = name + "=" + rest
		}
		out[i] = rest
	}
	return strings.Join(out, ", ")
}

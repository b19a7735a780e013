package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/continuity-dev/continuity/instance"
)

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

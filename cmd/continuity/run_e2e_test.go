package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/instance"
)

// TestRunCodex: README's `continuity run … codex` starts the data
// directory's proxy, runs the real Codex through it without touching
// config.toml — a thread begun as account A and resumed as B is accepted —
// reuses the proxy for the second run, and the proxy stops after the last
// run ends.
func TestRunCodex(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	h := newHome(t)
	qs := quickStart["codex"]
	path := h.write(t, filepath.Join(".codex", "config.toml"), codexConfig)
	t.Cleanup(func() { stopRegistered(h.dataDir()) })

	pids := map[int]bool{}
	for i, step := range []struct{ token, account string }{{tokenA, "acct-A"}, {tokenB, "acct-B"}} {
		codexSignIn(t, h, step.token)
		toolTurn(sup)
		n := len(sup.Requests())
		args := append(quickArgs(qs.run, sup.URL(), "--listen", "127.0.0.1:0"), codexExec("turn", i > 0)...)
		code, out := h.continuity(t, nil, args...)
		if code != 0 {
			t.Fatalf("run as %s: exit %d\n%s", step.account, code, out)
		}
		if !strings.Contains(out, "continuity run: started the proxy at http://127.0.0.1:") || !strings.Contains(out, "continuity run: status page: http://127.0.0.1:") {
			t.Fatalf("the run did not say it started the proxy and where its status page is:\n%s", out)
		}
		accepted(t, sup.Requests()[n:], step.account)
		rec, err := instance.Last(h.dataDir())
		if err != nil {
			t.Fatal(err)
		}
		pids[rec.PID] = true
		waitStopped(t, h.dataDir())
	}
	if len(pids) != 2 {
		t.Fatalf("proxies %v: each run, starting after the last one ended, starts its own", pids)
	}
	if b, _ := os.ReadFile(path); string(b) != codexConfig {
		t.Fatalf("run changed config.toml:\n%s", b)
	}

	// A running proxy is reused: a later run finds the one a person
	// started and leaves it running.
	px := h.startProxy(t, sup.URL())
	toolTurn(sup)
	n := len(sup.Requests())
	code, out := h.continuity(t, nil, append(quickArgs(qs.run, sup.URL()), codexExec("again", true)...)...)
	if code != 0 || !strings.Contains(out, "continuity run: using the proxy running at "+px.URL) {
		t.Fatalf("run with a proxy running: exit %d\n%s", code, out)
	}
	accepted(t, sup.Requests()[n:], "acct-B")
	if rec, running, _ := instance.Find(h.dataDir()); !running || rec.URL != px.URL {
		t.Fatalf("after the run the proxy a person started is gone: %+v %v", rec, running)
	}
	// The client's exit status is run's: Codex exits 2 on a flag it does
	// not know.
	if code, out := h.continuity(t, nil, append(quickArgs(qs.run, sup.URL()), "--no-such-flag")...); code != 2 {
		t.Fatalf("codex --no-such-flag through run: exit %d, want codex's 2\n%s", code, out)
	}
}

// TestRunRefusesWithoutProxy: when the proxy cannot start — its port is
// taken by something else — the client is not started and the error says
// why; with no upstream ever given, run names --upstream as missing.
func TestRunRefusesWithoutProxy(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	// A codex first on PATH that records being started.
	fake := t.TempDir()
	marker := filepath.Join(fake, "started")
	if err := os.WriteFile(filepath.Join(fake, "codex"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH")}
	code, out := h.continuity(t, env, "run", "--upstream", "http://127.0.0.1:9", "--listen", taken.Addr().String(), "codex", "exec", "hi")
	if code == 0 || !strings.Contains(out, "the proxy could not start") || !strings.Contains(out, "address already in use") ||
		!strings.Contains(out, "codex was not started") {
		t.Fatalf("run with the port taken: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("codex was started although the proxy was not")
	}
	if code, out := h.continuity(t, env, "run", "--data-dir", t.TempDir(), "codex"); code == 0 || !strings.Contains(out, "--upstream is required") {
		t.Fatalf("run with no upstream: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("codex was started without an upstream")
	}
}

// waitStopped waits for the proxy a run started to stop by itself.
func waitStopped(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, running, err := instance.Find(dir); err == nil && !running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the proxy a run started still runs after the run ended")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stopRegistered ends a proxy a failed test left running.
func stopRegistered(dir string) {
	if rec, running, err := instance.Find(dir); err == nil && running && rec.PID > 0 {
		if p, err := os.FindProcess(rec.PID); err == nil {
			_ = p.Signal(syscall.SIGTERM)
		}
	}
}

// TestRunOpencode: README's `continuity run … opencode` runs the real
// opencode through the proxy it starts via OPENCODE_CONFIG_CONTENT, over a
// configuration whose own baseURL points elsewhere, which stays unchanged.
func TestRunOpencode(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	h := newHome(t)
	conf := strings.Replace(opencodeConfig, `"options": {"apiKey": "{env:SUP_KEY}"}`,
		`"options": {"apiKey": "{env:SUP_KEY}", "baseURL": "http://127.0.0.1:9/v1"}`, 1)
	path := h.write(t, filepath.Join(".config", "opencode", "opencode.json"), conf)
	t.Cleanup(func() { stopRegistered(h.dataDir()) })
	sup.Script(globStep)
	n := len(sup.Requests())
	args := append(quickArgs(quickStart["opencode"].run, sup.URL(), "--listen", "127.0.0.1:0"), "run", "turn")
	if code, out := h.continuity(t, []string{"SUP_KEY=" + tokenA}, args...); code != 0 {
		t.Fatalf("run opencode: exit %d\n%s", code, out)
	}
	accepted(t, sup.Requests()[n:], "acct-A")
	if b, _ := os.ReadFile(path); string(b) != conf {
		t.Fatalf("run changed opencode.json:\n%s", b)
	}
	waitStopped(t, h.dataDir())
}

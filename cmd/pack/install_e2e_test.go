//go:build linux

package main

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/supplier"
	"github.com/continuity-dev/continuity/internal/npmregistry"
	"github.com/continuity-dev/continuity/internal/syncbuf"
	"github.com/continuity-dev/continuity/server"
)

// TestNpmPackageInstallsAndProxies installs @continuity-dev/continuity the
// way a person without Go does — `npx` and `npm install -g` against a
// registry double serving the packed tarballs, with no go on PATH — and
// runs `npx … --version` (the stamped version and commit) and `npx …
// proxy`, through which the real Codex CLI switches accounts once: the
// thread started as acct-A is resumed as acct-B and accepted, where the
// same resume sent directly is rejected. Ctrl-C ends npx, the launcher and
// the proxy, and `npm install -g` gives a continuity on PATH.
func TestNpmPackageInstallsAndProxies(t *testing.T) {
	files := packHost(t, "cli")
	reg := npmregistry.Start(t, files["platform"], files["cli"])
	home := t.TempDir()
	env := []string{"PATH=" + noGoPath(t), "HOME=" + home, "LANG=C.UTF-8", "NO_COLOR=1",
		"npm_config_registry=" + reg.URL(), "npm_config_cache=" + filepath.Join(home, "cache"),
		"npm_config_prefix=" + filepath.Join(home, "global"), "npm_config_update_notifier=false",
		"npm_config_audit=false", "npm_config_fund=false", "npm_config_yes=true"}
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Env, cmd.Dir = env, home
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	out := run(strings.Fields(installCommands[0])...)
	if !strings.Contains(out, "continuity "+server.Version+" (protocol "+server.ProtocolVersion+")") || !strings.Contains(out, "\ncommit   ") ||
		strings.Contains(out, "commit   unknown") {
		t.Fatalf("npx --version printed:\n%s", out)
	}

	sup, err := supplier.Start(supplier.Config{Accounts: []supplier.Account{
		{Name: "acct-A", Token: tokenA, Key: "key-A-0123"},
		{Name: "acct-B", Token: tokenB, Key: "key-B-4567"},
	}, ReasoningWithoutID: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Close() })
	proxyArgs := strings.Fields(strings.Replace(installCommands[1], "https://api.openai.com", sup.URL(), 1))
	px := exec.Command(proxyArgs[0], append(proxyArgs[1:], "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(home, "data"))...)
	px.Env, px.Dir = env, home
	// Its own process group, as a terminal's foreground job: Ctrl-C sends
	// SIGINT to npx, the launcher and the binary at once (npx itself does
	// not pass signals on), and the test must not leave any of them behind.
	px.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var pxLog syncbuf.Buffer
	px.Stderr = &pxLog
	pxOut, err := px.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := px.Start(); err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceValue(func() error {
		_ = syscall.Kill(-px.Process.Pid, syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- px.Wait() }() // ends when npx does
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-px.Process.Pid, syscall.SIGKILL)
			<-done
			t.Errorf("npx … proxy did not end within 30 s of Ctrl-C (SIGINT to its process group)\n%s", pxLog.String())
			return nil
		}
	})
	t.Cleanup(func() { _ = stop() })
	base := ""
	sc := bufio.NewScanner(pxOut)
	for base == "" && sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "continuity proxy listening on "); ok {
			base, _, _ = strings.Cut(rest, " ")
		}
	}
	if base == "" {
		t.Fatalf("npx … proxy printed no address: %v\n%s", sc.Err(), pxLog.String())
	}
	go func() { // drains the proxy's stdout until it exits; owned by stop
		for sc.Scan() {
		}
	}()

	c := newCodexHome(t)
	sup.Script(supplier.Answer{Kind: supplier.Message, Text: "first"})
	c.turn(t, base, tokenA, false)
	n := len(sup.Requests())
	sup.Script(supplier.Answer{Kind: supplier.Message, Text: "direct"})
	if _, err := c.try(t, sup.URL(), tokenB, true); err == nil || !strings.HasPrefix(lastRequest(t, sup, n).Problem, "foreign") {
		t.Fatalf("the resumed thread sent directly as acct-B was not rejected: %v %+v", err, lastRequest(t, sup, n))
	}
	n = len(sup.Requests())
	sup.Script(supplier.Answer{Kind: supplier.Message, Text: "switched"})
	c.turn(t, base, tokenB, true)
	if r := lastRequest(t, sup, n); r.Status != 200 || r.Account != "acct-B" {
		t.Fatalf("the switched turn through npx … proxy: %d %q as %s", r.Status, r.Problem, r.Account)
	}
	// npx ends by the signal, as a shell shows Ctrl-C; the proxy behind
	// the launcher must end too, leaving no process of the group.
	if err := stop(); err != nil && !strings.Contains(err.Error(), "signal: interrupt") {
		t.Fatalf("npx … proxy exited after Ctrl-C: %v\n%s", err, pxLog.String())
	}
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(-px.Process.Pid, 0) == nil; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-px.Process.Pid, syscall.SIGKILL)
			t.Fatalf("the launcher or the proxy outlived Ctrl-C by 10 s\n%s", pxLog.String())
		}
	}

	run(strings.Fields(installCommands[2])...)
	bin := filepath.Join(home, "global", "bin", "continuity")
	if out := run(bin, "--version"); !strings.HasPrefix(out, "continuity "+server.Version+" ") {
		t.Fatalf("the globally installed continuity --version printed:\n%s", out)
	}
}

func lastRequest(t *testing.T, sup *supplier.Server, since int) supplier.Request {
	t.Helper()
	reqs := sup.Requests()
	if len(reqs) <= since {
		t.Fatal("the client sent no request")
	}
	return reqs[len(reqs)-1]
}

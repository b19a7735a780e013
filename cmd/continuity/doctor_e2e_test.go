package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctor: README's `continuity doctor` passes on a healthy set-up — a
// proxy running for the data directory, Codex configured for it, a sound
// database, an upstream that answers — and finds each problem, naming the
// command that fixes it, with exit status 1: no proxy, a client pointed
// elsewhere, a data directory that is not usable, a corrupt database.
func TestDoctor(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	h := newHome(t)
	qs := quickStart["codex"]
	h.write(t, filepath.Join(".codex", "config.toml"), codexConfig)
	px := h.startProxy(t, sup.URL())
	if code, out := h.continuity(t, nil, quickArgs(qs.configure, sup.URL(), "--proxy", px.URL)...); code != 0 {
		t.Fatalf("configure: %d\n%s", code, out)
	}
	doctor := func(extra ...string) (int, string) {
		t.Helper()
		return h.continuity(t, nil, append(quickArgs(qs.doctor, sup.URL()), extra...)...)
	}
	code, out := doctor()
	if code != 0 || !strings.Contains(out, "no problems found") || !strings.Contains(out, "ok       proxy running at "+px.URL) ||
		!strings.Contains(out, "points at the proxy") || !strings.Contains(out, "passes integrity_check") || !strings.Contains(out, "upstream "+sup.URL()+" answers") {
		t.Fatalf("healthy: exit %d\n%s", code, out)
	}

	// A client pointed elsewhere.
	if code, out := h.continuity(t, nil, "configure", "--proxy", "http://127.0.0.1:1", "codex"); code != 0 {
		t.Fatalf("%d %s", code, out)
	}
	code, out = doctor()
	if code != 1 || !problem(out, "codex: ", "points at http://127.0.0.1:1/v1, not at the proxy's "+px.URL+"/v1", "fix: continuity configure --proxy "+px.URL+" codex") {
		t.Fatalf("client elsewhere: exit %d\n%s", code, out)
	}

	// No proxy.
	px.Stop()
	code, out = doctor()
	if code != 1 || !problem(out, "no proxy is running for "+h.dataDir(), "fix: continuity proxy --data-dir "+h.dataDir()+" --upstream "+sup.URL()) {
		t.Fatalf("no proxy: exit %d\n%s", code, out)
	}

	// A corrupt database.
	db := filepath.Join(h.dataDir(), "continuity.db")
	for _, f := range []string{db + "-wal", db + "-shm"} {
		os.Remove(f)
	}
	if err := os.WriteFile(db, []byte(strings.Repeat("not a database ", 512)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out = doctor()
	if code != 1 || !problem(out, "database "+db+" is not sound", "fix: stop the proxy, then move the database aside: mv "+db) {
		t.Fatalf("corrupt database: exit %d\n%s", code, out)
	}

	// A data directory that cannot be written: a file in its place (which
	// stops root too), and, for anyone else, one without write permission.
	blocked := filepath.Join(t.TempDir(), "continuity")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out = doctor("--data-dir", blocked)
	if code != 1 || !problem(out, "data directory "+blocked+" is not a directory", "fix: move the file aside") {
		t.Fatalf("file as data directory: exit %d\n%s", code, out)
	}
	if os.Geteuid() != 0 {
		ro := t.TempDir()
		if err := os.Chmod(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o700) })
		code, out = doctor("--data-dir", ro)
		if code != 1 || !problem(out, "data directory "+ro+" is not writable", "fix: chmod u+rwx "+ro) {
			t.Fatalf("read-only data directory: exit %d\n%s", code, out)
		}
	}
}

// problem reports whether out has a PROBLEM line holding each of parts, in
// order, the last of them (the fix) on the line after it.
func problem(out string, parts ...string) bool {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "PROBLEM  ") || i+1 >= len(lines) {
			continue
		}
		text := l + "\n" + lines[i+1]
		ok := true
		for _, p := range parts {
			if !strings.Contains(text, p) {
				ok = false
			}
		}
		if ok && strings.Contains(lines[i+1], parts[len(parts)-1]) {
			return true
		}
	}
	return false
}

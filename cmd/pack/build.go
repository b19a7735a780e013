package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// goEnv is the environment of a go command building for t. CGO is off:
// the store is modernc.org/sqlite, pure Go, so every target cross-compiles
// from any machine and the binary needs no C library at run time.
func goEnv(t target) []string {
	return append(os.Environ(), "GOOS="+t.goos, "GOARCH="+t.goarch, "CGO_ENABLED=0")
}

// buildBinary cross-compiles cmd/continuity for t into dst. -trimpath keeps
// the build machine's paths out of a binary that is published; -s -w drop
// the symbol and DWARF tables nobody debugs a release with; the commit is
// stamped for `continuity --version` (main.stampedCommit).
func buildBinary(ctx context.Context, repo string, t target, dst, commit string) error {
	ldflags := "-s -w"
	if commit != "" {
		ldflags += " -X 'main.stampedCommit=" + commit + "'"
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags="+ldflags, "-o", dst, "./cmd/continuity")
	cmd.Dir, cmd.Env = repo, goEnv(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the binary for %s (GOOS=%s GOARCH=%s): %w\n%s", t, t.goos, t.goarch, err, out)
	}
	return nil
}

// checkTarget is the cheap form of buildBinary: it lists the package graph
// of cmd/continuity as Go would build it for t and names every package the
// target cannot build (its files all excluded by build constraints, or
// missing) — what breaks first when a dependency drops a platform —
// without compiling anything.
func checkTarget(ctx context.Context, repo string, t target) error {
	const format = `{{with .Error}}{{$.ImportPath}}: {{.Err}}{{"\n"}}{{end}}`
	cmd := exec.CommandContext(ctx, "go", "list", "-e", "-deps", "-f", format, "./cmd/continuity")
	var stderr bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stderr = repo, goEnv(t), &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list for %s: %w\n%s", t, err, stderr.Bytes())
	}
	if broken := strings.TrimSpace(string(out)); broken != "" {
		return fmt.Errorf("cmd/continuity does not build for %s (GOOS=%s GOARCH=%s):\n%s", t, t.goos, t.goarch, broken)
	}
	return nil
}

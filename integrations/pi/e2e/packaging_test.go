package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// nodePlatform is this machine as Node names it (process.platform-arch),
// the suffix of the platform package's name.
func nodePlatform(t *testing.T) string {
	t.Helper()
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if runtime.GOOS != "linux" || arch == "" {
		t.Fatalf("the pi e2e tests run on linux x64 or arm64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return "linux-" + arch
}

// packForThisMachine runs scripts/pack-pi for this machine's platform and
// returns the extension's and the platform package's tarballs. The
// development manifest must come out of it untouched.
func packForThisMachine(t *testing.T, platform string) (ext, bin string) {
	t.Helper()
	repo := filepath.Dir(filepath.Dir(packageDir(t)))
	manifest := filepath.Join(packageDir(t), "package.json")
	dev, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(dev, &m); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatalf("npm is not on PATH: packing and installing the extension need the npm of the machine's Node 20 (%v)", err)
	}
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(repo, "scripts", "pack-pi"), "-platforms", "host", "-out", out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("scripts/pack-pi: %v\n%s", err, stderr.String())
	}
	want := []string{
		filepath.Join(out, "continuity-dev-continuity-"+platform+"-"+m.Version+".tgz"),
		filepath.Join(out, "continuity-dev-pi-continuity-"+m.Version+".tgz"),
	}
	if got := strings.Fields(stdout.String()); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("scripts/pack-pi printed %q, want %q", got, want)
	}
	if after, err := os.ReadFile(manifest); err != nil || !bytes.Equal(after, dev) {
		t.Fatalf("scripts/pack-pi changed integrations/pi/package.json (%v)", err)
	}
	return want[1], want[0]
}

// npmInstall installs tarballs into a fresh prefix from the tarballs
// alone: offline with an empty cache, so no registry is asked, and the
// extension's optional platform packages that are not given are skipped
// as npm skips them on a platform they do not match.
func npmInstall(t *testing.T, tarballs ...string) string {
	t.Helper()
	prefix := t.TempDir()
	args := append([]string{"install", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", "--ignore-scripts",
		"--cache", t.TempDir()}, tarballs...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "npm", args...).CombinedOutput(); err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return prefix
}

// checkInstalledManifest: the installed extension's manifest names all
// five platform packages as optional dependencies at its own version.
func checkInstalledManifest(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Version  string            `json:"version"`
		Optional map[string]string `json:"optionalDependencies"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"} {
		if v := m.Optional["@continuity-dev/continuity-"+p]; v != m.Version {
			t.Errorf("optionalDependencies[@continuity-dev/continuity-%s] = %q, want %s", p, v, m.Version)
		}
	}
}

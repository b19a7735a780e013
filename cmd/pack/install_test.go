package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/internal/syncbuf"
	"github.com/continuity-dev/continuity/server"
)

// The install commands README.md's "Install" section gives, as the tests
// below run them (TestReadmeInstallCommands holds the two together). The
// tests stand the registry double in for the npm registry, a file GOPROXY
// for the module proxy, and a temporary directory for the download.
var installCommands = []string{
	"npx @continuity-dev/continuity --version",
	"npx @continuity-dev/continuity proxy --upstream https://api.openai.com",
	"npm install -g @continuity-dev/continuity",
	"continuity --version",
	"sha256sum -c --ignore-missing SHA256SUMS",
	"tar xzf continuity-" + server.Version + "-linux-amd64.tar.gz",
	"go install github.com/continuity-dev/continuity/cmd/continuity@v" + server.Version,
	"go install ./cmd/continuity",
	"scripts/pack -platforms host",
}

// packHost runs scripts/pack for this machine's platform into a temporary
// directory and returns the written files by kind: the platform package,
// the CLI package, the archive and SHA256SUMS.
func packHost(t *testing.T, kinds ...string) map[string]string {
	t.Helper()
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Fatalf("the install tests run on linux amd64 or arm64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	repo, err := moduleRoot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(repo, "scripts", "pack"), append([]string{"-platforms", "host", "-out", out}, kinds...)...)
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/pack: %v\n%s", err, stderr.String())
	}
	files := map[string]string{}
	for _, f := range strings.Fields(string(stdout)) {
		switch base := filepath.Base(f); {
		case base == "SHA256SUMS":
			files["sums"] = f
		case strings.HasPrefix(base, "continuity-dev-continuity-linux-"):
			files["platform"] = f
		case base == "continuity-dev-continuity-"+server.Version+".tgz":
			files["cli"] = f
		case strings.HasPrefix(base, "continuity-"+server.Version+"-linux-"):
			files["archive"] = f
		}
	}
	return files
}

// noGoPath is a PATH with node and npm and without any go: the person the
// npm package is for has no Go toolchain.
func noGoPath(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH: the npm package runs on Node (%v)", err)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm is not on PATH (%v)", err)
	}
	dirs := []string{filepath.Dir(node), filepath.Dir(npm), "/usr/bin", "/bin"}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "go")); err == nil {
			t.Fatalf("%s holds a go; the test needs a PATH without Go", d)
		}
	}
	return strings.Join(dirs, string(os.PathListSeparator))
}

package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/server"
)

// TestArchivesVerifyAndRun: scripts/pack's archive for this machine
// verifies against SHA256SUMS with sha256sum -c, unpacks with tar into a
// directory holding the binary, README.md and LICENSE, and the binary
// prints the version; a byte changed in the archive fails the check.
func TestArchivesVerifyAndRun(t *testing.T) {
	t.Parallel()
	files := packHost(t, "archives")
	dir := filepath.Dir(files["sums"])
	sh := func(args ...string) (string, error) {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := sh(strings.Fields(installCommands[4])...); err != nil || !strings.Contains(out, filepath.Base(files["archive"])+": OK") {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
	if out, err := sh("tar", "xzf", filepath.Base(files["archive"])); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	top := filepath.Join(dir, strings.TrimSuffix(filepath.Base(files["archive"]), ".tar.gz"))
	for _, f := range []string{"README.md", "LICENSE"} {
		if _, err := os.Stat(filepath.Join(top, f)); err != nil {
			t.Errorf("the archive lacks %s: %v", f, err)
		}
	}
	if out, err := sh(filepath.Join(top, "continuity"), "--version"); err != nil || !strings.HasPrefix(out, "continuity "+server.Version+" ") {
		t.Fatalf("the archive's binary: %v\n%s", err, out)
	}
	b, err := os.ReadFile(files["archive"])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(files["archive"], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := sh("sha256sum", "-c", "SHA256SUMS"); err == nil || !strings.Contains(out, "FAILED") {
		t.Fatalf("a changed archive passed sha256sum -c:\n%s", out)
	}
}

// TestGoInstallFromModuleProxy: `go install …/cmd/continuity@vX.Y.Z`
// against a module proxy serving this tree as that version builds a
// binary that prints it. The proxy is a file GOPROXY made from the
// repository's tracked files (the module zip's layout); the dependencies
// come from the local module cache's download directory, itself a valid
// GOPROXY, through a fresh module cache, so nothing is fetched and the
// made-up release never enters the real cache.
func TestGoInstallFromModuleProxy(t *testing.T) {
	t.Parallel()
	repo, err := moduleRoot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/continuity-dev/continuity"
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil || !strings.HasPrefix(string(gomod), "module "+module+"\n") {
		t.Fatalf("go.mod does not declare module %s (%v)", module, err)
	}
	v := "v" + server.Version
	proxy := t.TempDir()
	at := filepath.Join(proxy, module, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": v, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, body := range map[string][]byte{"list": []byte(v + "\n"), v + ".info": info, v + ".mod": gomod} {
		if err := os.WriteFile(filepath.Join(at, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeModuleZip(t, repo, module+"@"+v, filepath.Join(at, v+".zip"))

	cache := strings.TrimSpace(goEnvValue(t, "GOMODCACHE"))
	gobin, modcache := t.TempDir(), t.TempDir()
	// Go leaves the module cache read-only; the temporary one must be
	// removable.
	t.Cleanup(func() { _ = exec.Command("chmod", "-R", "u+w", modcache).Run() })
	cmd := exec.Command("go", strings.Fields(installCommands[6])[1:]...)
	cmd.Dir = t.TempDir() // outside the repository: what a person runs anywhere
	cmd.Env = append(os.Environ(), "GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(cache, "cache", "download")),
		"GOMODCACHE="+modcache, "GOBIN="+gobin, "GOSUMDB=off", "GONOSUMDB="+module, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(gobin, "continuity"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "continuity "+server.Version+" ") || !strings.Contains(string(out), "\nmodule   "+module+" "+v+"\n") {
		t.Fatalf("the installed continuity --version: %v\n%s", err, out)
	}
}

// TestGoInstallFromAClone: README's from-a-clone line, run in the
// repository with GOBIN set, gives a continuity that prints this version.
func TestGoInstallFromAClone(t *testing.T) {
	repo, err := moduleRoot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	gobin := t.TempDir()
	f := strings.Fields(installCommands[7])
	cmd := exec.Command(f[0], f[1:]...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", installCommands[7], err, out)
	}
	out, err := exec.Command(filepath.Join(gobin, "continuity"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "continuity "+server.Version+" ") {
		t.Fatalf("the installed continuity --version: %v\n%s", err, out)
	}
}

func goEnvValue(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// writeModuleZip writes the module zip of the repository's tracked files
// (git ls-files: no node_modules, no build output), each under prefix/.
func writeModuleZip(t *testing.T, repo, prefix, dst string) {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = repo
	list, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(repo, name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(prefix + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

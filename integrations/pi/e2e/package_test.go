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

// TestPackagedExtension installs the extension the way a pi user gets it:
// scripts/pack-pi packs this machine's platform package and the extension,
// npm installs the two tarballs offline into a fresh prefix, and the real
// pi loads the installed extension — with CONTINUITY_BIN unset and no
// continuity on PATH, so the plugin can only come from the platform
// package. A filtered request through the plugin and the extension's
// trace (the binary it ran and from where) prove it did; `pi install` of
// the installed package does the same; and the extension installed alone
// reports BinaryNotFoundError's message and sends nothing.
func TestPackagedExtension(t *testing.T) {
	lines := piLines(t)
	platform := nodePlatform(t)
	ext, bin := packForThisMachine(t, platform)
	withBinary := npmInstall(t, ext, bin)
	alone := npmInstall(t, ext)
	installed := func(prefix, pkg string) string { return filepath.Join(prefix, "node_modules", "@continuity-dev", pkg) }
	platformBin := filepath.Join(installed(withBinary, "continuity-"+platform), "bin", "continuity")
	checkInstalledManifest(t, installed(withBinary, "pi-continuity"))

	for _, line := range lines {
		t.Run("binary from the platform package/"+line.name, func(t *testing.T) {
			r := newRig(t, line)
			main := filepath.Join(installed(withBinary, "pi-continuity"), "index.ts")
			if res := r.piRun("", "-e", main, "--no-session", "-p", "/continuity"); !strings.Contains(res.stderr, "Use the new-session default: On") {
				t.Fatalf("first load of the installed extension: %v\n%s", res.err, res.stderr)
			}
			for i, acct := range []string{"acct-A", "acct-B"} {
				if res := r.piRun(acct, "-e", main, "-c", "-p", "list the files"); res.err != nil || strings.TrimSpace(res.stdout) == "" {
					t.Fatalf("turn %d as %s: %v\nstdout:\n%s\nstderr:\n%s", i+1, acct, res.err, res.stdout, res.stderr)
				}
			}
			reqs, trs := r.sup.Requests(), r.traces()
			if len(reqs) != 4 || len(trs) != 4 {
				t.Fatalf("supplier saw %d requests, the extension traced %d; want 4", len(reqs), len(trs))
			}
			for i, req := range reqs {
				if req.Status != 200 || sha(req.Body) != trs[i].SHA256 {
					t.Fatalf("request %d: %d %s; supplier bytes %s, plugin output %s", i+1, req.Status, req.Problem, sha(req.Body), trs[i].SHA256)
				}
			}
			if switched := trs[2]; switched.Outcome != "filtered" || switched.Omitted.Items == 0 {
				t.Fatalf("the first request after the switch to B: %+v, want acct-A's reasoning omitted", switched)
			}
			r.wantBinary(platformBin)

			// pi install of the installed package directory: a later run
			// loads it with no -e and still runs the packaged binary.
			if res := r.piRun("", "install", installed(withBinary, "pi-continuity")); !strings.Contains(res.stdout+res.stderr, "Installed") {
				t.Fatalf("pi install: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
			before := len(r.binaries())
			if res := r.piRun("", "--no-session", "-p", "/continuity"); !strings.Contains(res.stderr, "Session policy") {
				t.Fatalf("the pi-installed extension did not answer /continuity:\n%s", res.stderr)
			}
			if len(r.binaries()) == before {
				t.Fatalf("the pi-installed extension started no plugin")
			}
			r.wantBinary(platformBin)
		})
	}

	t.Run("no binary anywhere/"+lines[0].name, func(t *testing.T) {
		r := newRig(t, lines[0])
		res := r.piRun("acct-A", "-e", filepath.Join(installed(alone, "pi-continuity"), "index.ts"), "--no-session", "-p", "list the files")
		want := "continuity binary not found (tried CONTINUITY_BIN (unset), @continuity-dev/continuity-" + platform +
			" (not installed), PATH); set CONTINUITY_BIN, install @continuity-dev/continuity-" + platform + ", or put continuity on PATH"
		if !strings.Contains(res.stderr, want) {
			t.Fatalf("stderr lacks BinaryNotFoundError's message %q:\n%s", want, res.stderr)
		}
		if !strings.Contains(res.stderr, "The request was not sent (CONTINUITY_PLUGIN_UNAVAILABLE)") {
			t.Fatalf("the aborted request's diagnostic is missing:\n%s", res.stderr)
		}
		if n := len(r.sup.Requests()); n != 0 {
			t.Fatalf("without a plugin the supplier received %d requests; the request must not be sent unfiltered", n)
		}
		if res.err == nil {
			t.Fatalf("pi exited 0 although its request was aborted")
		}
	})
}

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

// piRun runs pi with args as acct, with CONTINUITY_BIN unset and a PATH on
// which no continuity is found (the directories of the machine's PATH
// that hold none), so the binary can only come from the platform package.
func (r *rig) piRun(acct string, args ...string) result {
	r.t.Helper()
	var env []string
	for _, kv := range r.env(acct) {
		switch {
		case strings.HasPrefix(kv, "CONTINUITY_BIN="):
			continue
		case strings.HasPrefix(kv, "PATH="):
			kv = "PATH=" + pathWithoutContinuity()
		}
		env = append(env, kv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.line.node, append([]string{r.line.cli}, args...)...)
	cmd.Dir, cmd.Env = r.workDir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		r.t.Fatalf("pi %s %v timed out; stderr:\n%s", r.line.name, args, errb.String())
	}
	return result{stdout: out.String(), stderr: errb.String(), err: err}
}

func pathWithoutContinuity() string {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "continuity")); err == nil || dir == "" {
			continue
		}
		keep = append(keep, dir)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// binaryTrace is the trace line saying which binary the extension started.
type binaryTrace struct {
	Binary string `json:"binary"`
	Source string `json:"source"`
}

func (r *rig) binaries() []binaryTrace {
	r.t.Helper()
	b, err := os.ReadFile(r.trace)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []binaryTrace
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var bt binaryTrace
		if err := json.Unmarshal([]byte(line), &bt); err != nil {
			r.t.Fatalf("trace line %q: %v", line, err)
		}
		if bt.Binary != "" {
			out = append(out, bt)
		}
	}
	return out
}

// wantBinary: every plugin the extension started was bin, found in the
// platform package.
func (r *rig) wantBinary(bin string) {
	r.t.Helper()
	bins := r.binaries()
	if len(bins) == 0 {
		r.t.Fatalf("the extension traced no binary")
	}
	for _, b := range bins {
		if b.Binary != bin || b.Source != "package" {
			r.t.Fatalf("the extension ran %s (from %s), want %s from the platform package", b.Binary, b.Source, bin)
		}
	}
}

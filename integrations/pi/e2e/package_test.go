package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/internal/npmregistry"
)

// TestPackagedExtension installs the extension the way a pi user gets it:
// scripts/pack-pi packs this machine's platform package and the extension,
// npm installs the two tarballs offline into a fresh prefix, and the real
// pi loads the installed extension — with CONTINUITY_BIN unset and no
// continuity on PATH, so the plugin can only come from the platform
// package. A filtered request through the plugin and the extension's
// trace (the binary it ran and from where) prove it did; `pi install` of
// the installed package does the same; `pi install npm:@continuity-dev/pi-continuity`
// against a registry double serving the tarballs (what a person runs once
// the packages are published) installs only this platform's binary and
// runs it; and the extension installed alone reports BinaryNotFoundError's
// message and sends nothing.
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
			r.filterTwoTurns(nil, "-e", filepath.Join(installed(withBinary, "pi-continuity"), "index.ts"))
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

		// What a person will run once the packages are published: pi runs
		// npm install (-g on 0.73, into its agent directory on 1.x), which
		// takes the extension and, of its optional dependencies, only this
		// platform's package from the registry.
		t.Run("pi install npm: from a registry/"+line.name, func(t *testing.T) {
			reg := npmregistry.Start(t, ext, bin)
			r := newRig(t, line)
			global := t.TempDir()
			npm := []string{"npm_config_registry=" + reg.URL(), "npm_config_prefix=" + global, "npm_config_cache=" + t.TempDir(),
				"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false"}
			if res := r.piRunWith("", npm, "install", "npm:@continuity-dev/pi-continuity"); !strings.Contains(res.stdout+res.stderr, "Installed") {
				t.Fatalf("pi install npm:@continuity-dev/pi-continuity: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
			r.filterTwoTurns(npm)
			// pi 0.73 installs with npm -g (into the npm prefix), pi 1.x into
			// its own agent directory's npm/; either way the binary is the
			// platform package's, where npm put it.
			bins := r.binaries()
			if len(bins) == 0 {
				t.Fatalf("the extension traced no binary")
			}
			got, sep := bins[0].Binary, string(filepath.Separator)
			under := strings.HasPrefix(got, global+sep) || strings.HasPrefix(got, r.agentDir+sep)
			if !under || !strings.HasSuffix(got, filepath.Join("node_modules", "@continuity-dev", "continuity-"+platform, "bin", "continuity")) {
				t.Fatalf("the extension ran %s, not the platform package's binary as npm installed it under %s or %s", got, global, r.agentDir)
			}
			r.wantBinary(got)
			var others int
			for _, p := range reg.Paths() {
				if file, ok := strings.CutPrefix(p, "/tarballs/"); ok && file != filepath.Base(ext) && file != filepath.Base(bin) {
					t.Fatalf("npm fetched %s, another platform's package", file)
				}
				if strings.HasPrefix(p, "/@continuity-dev/continuity-") && !strings.HasSuffix(p, platform) {
					others++
				}
			}
			if others == 0 {
				t.Fatalf("npm never looked at the other platforms' packages (asked for %q)", reg.Paths())
			}
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

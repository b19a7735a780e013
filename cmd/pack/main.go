// Command pack builds what continuity is installed from without Go or a
// clone:
//
//   - pi: the pi extension (integrations/pi) as an npm package with
//     optionalDependencies on the platform packages;
//   - cli: the npm package @continuity-dev/continuity, whose bin/ launcher
//     runs the binary of this platform's package (npx, npm install -g);
//   - archives: continuity-VERSION-GOOS-GOARCH.tar.gz (.zip on Windows)
//     and a SHA256SUMS file.
//
// The npm packages carry the binary the way @openai/codex ships its native
// one: one package per platform, @continuity-dev/continuity-<platform>-<arch>,
// holding bin/continuity[.exe] with os and cpu fields so npm installs only
// the matching one. The optionalDependencies exist only in the packed
// manifests, so the development package.json and its lockfile stay
// installable from the registry, where the platform packages need not be
// published.
//
//	scripts/pack [-out DIR] [-platforms all|host|linux-x64,…] [pi] [cli] [archives]   (default: all three)
//	scripts/pack -check [-platforms …]                                                   check each platform still cross-compiles, writing nothing
//
// The written files' paths are printed one per line: the platform
// packages first, then the pi extension, the CLI package, the archives
// and SHA256SUMS. Everything carries server.Version; the pi extension's
// package.json must say the same.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/continuity-dev/continuity/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// kinds are what pack can make, in the order they are made.
var kinds = []string{"pi", "cli", "archives"}

// job is one run's parsed command line.
type job struct {
	repo, out string
	targets   []target
	kinds     []string
}

func (j job) wants(kind string) bool { return slices.Contains(j.kinds, kind) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pack", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", "", "the repository's root (default: the Go module containing the working directory)")
	out := fs.String("out", "", "directory the packages and archives are written to (default: dist in the repository)")
	platforms := fs.String("platforms", "all", "platforms to build binaries for: all, host, or a list such as linux-x64,darwin-arm64")
	check := fs.Bool("check", false, "only check that cmd/continuity's packages build for each platform; write nothing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	j := job{repo: *repo, out: *out, kinds: fs.Args()}
	for _, k := range j.kinds {
		if !slices.Contains(kinds, k) {
			fmt.Fprintf(stderr, "pack: unexpected argument %q (what to pack: %s)\n", k, strings.Join(kinds, ", "))
			return 2
		}
	}
	if len(j.kinds) == 0 {
		j.kinds = kinds
	}
	if err := pack(ctx, j, *platforms, *check, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "pack: %v\n", err)
		return 1
	}
	return 0
}

func pack(ctx context.Context, j job, platforms string, check bool, stdout, stderr io.Writer) error {
	var err error
	if j.targets, err = selectTargets(platforms); err != nil {
		return err
	}
	if j.repo == "" {
		if j.repo, err = moduleRoot(ctx); err != nil {
			return err
		}
	}
	if check {
		for _, t := range j.targets {
			if err := checkTarget(ctx, j.repo, t); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: cmd/continuity builds (GOOS=%s GOARCH=%s)\n", t, t.goos, t.goarch)
		}
		return nil
	}
	ext, err := readExtension(filepath.Join(j.repo, "integrations", "pi"))
	if err != nil {
		return err
	}
	if ext.version != server.Version {
		return fmt.Errorf("the extension's version is %s but the binary's (server.Version) is %s; every package carries one version", ext.version, server.Version)
	}
	if j.out == "" {
		j.out = filepath.Join(j.repo, "dist")
	}
	if j.out, err = filepath.Abs(j.out); err != nil {
		return err
	}
	if err := os.MkdirAll(j.out, 0o755); err != nil {
		return err
	}
	stage, err := os.MkdirTemp("", "pack-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	p := packer{repo: j.repo, ext: ext, stage: stage, out: j.out, commit: headCommit(ctx, j.repo)}
	var written []string
	for _, t := range j.targets {
		fmt.Fprintf(stderr, "pack: building the binary for %s\n", t)
		if err := p.binary(ctx, t); err != nil {
			return err
		}
		if j.wants("pi") || j.wants("cli") {
			tarball, err := p.platform(ctx, t)
			if err != nil {
				return err
			}
			written = append(written, tarball)
		}
	}
	if j.wants("pi") {
		tarball, err := p.extension(ctx)
		if err != nil {
			return err
		}
		written = append(written, tarball)
	}
	if j.wants("cli") {
		tarball, err := p.cli(ctx)
		if err != nil {
			return err
		}
		written = append(written, tarball)
	}
	if j.wants("archives") {
		files, err := p.archives(j.targets)
		if err != nil {
			return err
		}
		written = append(written, files...)
	}
	for _, f := range written {
		fmt.Fprintln(stdout, f)
	}
	return nil
}

// moduleRoot is the directory of the Go module the working directory is in.
func moduleRoot(ctx context.Context) (string, error) {
	b, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(b))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the continuity repository (go env GOMOD: %q); run from the repository or pass -repo", gomod)
	}
	return filepath.Dir(gomod), nil
}

// headCommit is the repository's commit, stamped into the binaries; "" when
// the tree is not a git checkout (the binary then says it does not know).
func headCommit(ctx context.Context, repo string) string {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "HEAD")
	cmd.Dir = repo
	b, err := cmd.Output()
	if err != nil {
		return ""
	}
	commit := strings.TrimSpace(string(b))
	cmd = exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no")
	cmd.Dir = repo
	if st, err := cmd.Output(); err == nil && len(st) > 0 {
		commit += " (with uncommitted changes)"
	}
	return commit
}

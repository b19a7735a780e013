// Command pack-pi builds the npm packages that install the pi extension
// (integrations/pi) together with its binary, the way @openai/codex ships
// its native one: one package per platform, @continuity-dev/continuity-<platform>-<arch>,
// holding bin/continuity[.exe] with os and cpu fields so npm installs only
// the matching one; and the extension itself, packed with
// optionalDependencies on all of them at its own version. The
// optionalDependencies exist only in the packed manifest, so the
// development package.json and its lockfile stay installable from the
// registry, where the platform packages need not be published.
//
//	scripts/pack-pi [-out DIR] [-platforms all|host|linux-x64,…]   build the binaries and write the tarballs
//	scripts/pack-pi -check [-platforms …]                          check each platform still cross-compiles, writing nothing
//
// The tarballs' paths are printed one per line. Every package carries the
// extension's version, which must be the binary's (server.Version).
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
	"strings"

	"github.com/continuity-dev/continuity/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pack-pi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", "", "the repository's root (default: the Go module containing the working directory)")
	out := fs.String("out", "", "directory the tarballs are written to (default: dist/pi in the repository)")
	platforms := fs.String("platforms", "all", "platforms to build binaries for: all, host, or a list such as linux-x64,darwin-arm64")
	check := fs.Bool("check", false, "only check that cmd/continuity's packages build for each platform; write nothing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pack-pi: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := pack(ctx, *repo, *out, *platforms, *check, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "pack-pi: %v\n", err)
		return 1
	}
	return 0
}

func pack(ctx context.Context, repo, out, platforms string, check bool, stdout, stderr io.Writer) error {
	ts, err := selectTargets(platforms)
	if err != nil {
		return err
	}
	if repo == "" {
		if repo, err = moduleRoot(ctx); err != nil {
			return err
		}
	}
	if check {
		for _, t := range ts {
			if err := checkTarget(ctx, repo, t); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: cmd/continuity builds (GOOS=%s GOARCH=%s)\n", t, t.goos, t.goarch)
		}
		return nil
	}
	ext, err := readExtension(filepath.Join(repo, "integrations", "pi"))
	if err != nil {
		return err
	}
	if ext.version != server.Version {
		return fmt.Errorf("the extension's version is %s but the binary's (server.Version) is %s; every package carries one version", ext.version, server.Version)
	}
	if out == "" {
		out = filepath.Join(repo, "dist", "pi")
	}
	if out, err = filepath.Abs(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	stage, err := os.MkdirTemp("", "pack-pi-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	p := packer{repo: repo, ext: ext, stage: stage, out: out}
	for _, t := range ts {
		fmt.Fprintf(stderr, "pack-pi: building %s for %s\n", t.packageName(), t)
		tarball, err := p.platform(ctx, t)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, tarball)
	}
	tarball, err := p.extension(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tarball)
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

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// packer builds the packages and archives into out, staging each in its
// own temporary directory under stage. Each target's binary is built once
// (binary) and shared by its npm package and its archive.
type packer struct {
	repo   string
	ext    extension
	stage  string
	out    string
	commit string // stamped into the binaries; "" outside a git checkout
}

// builtBinary is where binary leaves t's executable.
func (p packer) builtBinary(t target) string {
	return filepath.Join(p.stage, "bin", t.String(), t.executable())
}

// binary builds t's executable and checks it is one of t's format and CPU.
func (p packer) binary(ctx context.Context, t target) error {
	bin := p.builtBinary(t)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return err
	}
	if err := buildBinary(ctx, p.repo, t, bin, p.commit); err != nil {
		return err
	}
	return checkExecutable(bin, t)
}

// platform packs t's binary package; it returns the tarball's path.
func (p packer) platform(ctx context.Context, t target) (string, error) {
	dir := filepath.Join(p.stage, t.String())
	if err := copyFile(p.builtBinary(t), filepath.Join(dir, "bin", t.executable())); err != nil {
		return "", err
	}
	manifest, err := p.ext.platformManifest(t)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), manifest, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), p.ext.platformReadme(t), 0o644); err != nil {
		return "", err
	}
	res, err := npmPack(ctx, dir, p.out, false)
	if err != nil {
		return "", err
	}
	if !res.has("bin/" + t.executable()) {
		return "", fmt.Errorf("npm left bin/%s out of %s", t.executable(), res.Filename)
	}
	return filepath.Join(p.out, res.Filename), nil
}

// extension stages the files npm would pack of the extension, with the
// packed manifest in place of its package.json, and packs them.
func (p packer) extension(ctx context.Context) (string, error) {
	files, err := packedFiles(ctx, p.ext.dir)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(p.stage, "extension")
	for _, f := range files {
		if f == "package.json" {
			continue
		}
		if err := copyFile(filepath.Join(p.ext.dir, f), filepath.Join(dir, f)); err != nil {
			return "", err
		}
	}
	manifest, err := p.ext.packedManifest()
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), manifest, 0o644); err != nil {
		return "", err
	}
	res, err := npmPack(ctx, dir, p.out, false)
	if err != nil {
		return "", err
	}
	if len(res.Files) != len(files) {
		return "", fmt.Errorf("npm packed %d files of the extension's %d into %s", len(res.Files), len(files), res.Filename)
	}
	return filepath.Join(p.out, res.Filename), nil
}

// cli packs @continuity-dev/continuity: the launcher (npm/continuity.js),
// the manifest naming it as the continuity command with optionalDependencies
// on every platform package, README and LICENSE.
func (p packer) cli(ctx context.Context) (string, error) {
	dir := filepath.Join(p.stage, "cli")
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "continuity.js"), launcher, 0o755); err != nil {
		return "", err
	}
	manifest, err := p.ext.cliManifest()
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), manifest, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), p.ext.cliReadme(), 0o644); err != nil {
		return "", err
	}
	if err := copyFile(filepath.Join(p.repo, "LICENSE"), filepath.Join(dir, "LICENSE")); err != nil {
		return "", err
	}
	res, err := npmPack(ctx, dir, p.out, false)
	if err != nil {
		return "", err
	}
	for _, f := range []string{"bin/continuity.js", "package.json", "README.md", "LICENSE"} {
		if !res.has(f) {
			return "", fmt.Errorf("npm left %s out of %s", f, res.Filename)
		}
	}
	return filepath.Join(p.out, res.Filename), nil
}

// copyFile copies src to dst, creating dst's directory, keeping the mode.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("staging: %w", err)
	}
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, info.Mode().Perm())
}

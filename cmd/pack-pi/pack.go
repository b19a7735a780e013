package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// packer builds the tarballs into out, staging each package in its own
// temporary directory under stage.
type packer struct {
	repo  string
	ext   extension
	stage string
	out   string
}

// platform builds t's binary and packs its package; it returns the
// tarball's path.
func (p packer) platform(ctx context.Context, t target) (string, error) {
	dir := filepath.Join(p.stage, t.String())
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bin", t.executable())
	if err := buildBinary(ctx, p.repo, t, bin); err != nil {
		return "", err
	}
	if err := checkExecutable(bin, t); err != nil {
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

// copyFile copies src to dst, creating dst's directory, keeping the mode.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("staging the extension: %w", err)
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

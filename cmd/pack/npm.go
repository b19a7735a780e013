package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
)

// packResult is the one member of `npm pack --json`'s answer read here.
type packResult struct {
	Filename string `json:"filename"`
	Files    []struct {
		Path string `json:"path"`
	} `json:"files"`
}

func (r packResult) has(path string) bool {
	for _, f := range r.Files {
		if f.Path == path {
			return true
		}
	}
	return false
}

// npmPack runs `npm pack` in dir. With dryRun it only asks which files npm
// would pack; otherwise it writes the tarball into dest. Scripts are not
// run: nothing here has one, and packing must not run code.
func npmPack(ctx context.Context, dir, dest string, dryRun bool) (packResult, error) {
	args := []string{"pack", "--json", "--ignore-scripts"}
	if dryRun {
		args = append(args, "--dry-run")
	} else {
		args = append(args, "--pack-destination", dest)
	}
	cmd := exec.CommandContext(ctx, "npm", args...)
	var stderr bytes.Buffer
	cmd.Dir, cmd.Stderr = dir, &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := stderr.String(); msg != "" {
			return packResult{}, fmt.Errorf("npm pack in %s: %w\n%s", dir, err, msg)
		}
		return packResult{}, fmt.Errorf("npm pack in %s: %w (is npm installed?)", dir, err)
	}
	var results []packResult
	if err := json.Unmarshal(out, &results); err != nil || len(results) != 1 || results[0].Filename == "" {
		return packResult{}, fmt.Errorf("npm pack in %s: unexpected answer %q", dir, out)
	}
	return results[0], nil
}

// packedFiles lists what npm packs of the extension's directory (its
// `files`, package.json, README): staging copies exactly these, so which
// files ship stays npm's rule, read from the manifest.
func packedFiles(ctx context.Context, dir string) ([]string, error) {
	res, err := npmPack(ctx, dir, "", true)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(res.Files))
	for _, f := range res.Files {
		if !filepath.IsLocal(f.Path) {
			return nil, fmt.Errorf("npm would pack %q, outside %s", f.Path, dir)
		}
		paths = append(paths, f.Path)
	}
	return paths, nil
}

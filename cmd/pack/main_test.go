package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/server"
)

func runPack(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheckNamesEveryPlatform(t *testing.T) {
	code, out, errs := runPack("-check")
	if code != 0 {
		t.Fatalf("-check exited %d: %s", code, errs)
	}
	for _, tg := range targets {
		if !strings.Contains(out, tg.String()+": cmd/continuity builds") {
			t.Errorf("-check output lacks %s:\n%s", tg, out)
		}
	}
}

// TestRunRefuses: bad flags and a version the binary does not carry stop
// the run with a message, before anything is built or written.
func TestRunRefuses(t *testing.T) {
	if code, _, errs := runPack("-platforms", "beos-x64"); code != 1 || !strings.Contains(errs, `unknown platform "beos-x64"`) {
		t.Errorf("unknown platform: exit %d, %s", code, errs)
	}
	if code, _, errs := runPack("extra"); code != 2 || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("stray argument: exit %d, %s", code, errs)
	}
	repo := t.TempDir()
	ext := filepath.Join(repo, "integrations", "pi")
	if err := os.MkdirAll(ext, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ext, "package.json"), []byte(`{"name":"x","version":"99.0.0"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(repo, "out")
	code, _, errs := runPack("-repo", repo, "-out", out)
	if code != 1 || !strings.Contains(errs, "the extension's version is 99.0.0 but the binary's (server.Version) is "+server.Version) {
		t.Errorf("version mismatch: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run created %s (%v)", out, err)
	}
}

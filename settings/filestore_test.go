package settings_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
)

// fileStoreWith returns a FileStore whose namespace document holds doc.
func fileStoreWith(t *testing.T, doc string) (*settings.FileStore, string) {
	t.Helper()
	fs, err := settings.OpenFileStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fs.Path(ns), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return fs, fs.Path(ns)
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Fatalf("%s = %q (%v), want it untouched: %q", path, got, err, want)
	}
}

func TestFileStoreCAS(t *testing.T) {
	ctx := context.Background()
	fs, err := settings.OpenFileStore(filepath.Join(t.TempDir(), "new", "dir"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := fs.Describe(ctx, ns)
	if err != nil || string(n.Value) != `{}` || n.Revision != 0 || n.NS != ns {
		t.Fatalf("fresh namespace = %+v, %v", n, err)
	}
	set := func(k, v string) []hostapi.Op { return []hostapi.Op{{Op: "set", Path: []string{k}, Value: []byte(v)}} }
	for i, want := range []int64{1, 2, 3} {
		rev, err := fs.Mutate(ctx, ns, set("k", string(rune('1'+i))), want-1)
		if err != nil || rev != want {
			t.Fatalf("write %d: revision %d, %v", i, rev, err)
		}
	}
	_, err = fs.Mutate(ctx, ns, set("k", "9"), 1)
	var d *diag.Error
	if !errors.As(err, &d) || d.Code != settings.HostConflict {
		t.Fatalf("stale write: %v, want SETTINGS_CONFLICT", err)
	}
	const msg = `settings namespace "github-copilot" changed since it was read (expected revision 1, now 3)`
	if d.Message != msg || d.Data["expected"] != int64(1) || d.Data["actual"] != int64(3) {
		t.Fatalf("conflict = %q %v, want %q with expected 1, actual 3", d.Message, d.Data, msg)
	}
	n, _ = fs.Describe(ctx, ns)
	if string(n.Value) != `{"k":3}` || n.Revision != 3 {
		t.Fatalf("after a stale write: %s at %d", n.Value, n.Revision)
	}
	assertFile(t, fs.Path(ns), `{"revision":3,"value":{"k":3}}`)
	if _, err := fs.Mutate(ctx, ns, []hostapi.Op{{Op: "unset", Path: nil}}, 3); err == nil {
		t.Fatal("an op without a path was accepted")
	}
	for _, bad := range []string{"", "../x", "a/b", ".hidden", "a b"} {
		if _, err := fs.Describe(ctx, bad); err == nil {
			t.Errorf("namespace %q accepted", bad)
		}
		if _, err := fs.Mutate(ctx, bad, set("k", "1"), 0); err == nil {
			t.Errorf("namespace %q accepted for writing", bad)
		}
	}
}

func TestFileStoreRemovesDeadWritersTempFiles(t *testing.T) {
	ctx := context.Background()
	fs, path := fileStoreWith(t, `{"revision":1,"value":{}}`)
	stale := path + ".123.tmp"
	if err := os.WriteFile(stale, []byte(`{"revision":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Mutate(ctx, ns, []hostapi.Op{{Op: "set", Path: []string{"a"}, Value: []byte(`1`)}}, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale temp file left behind: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if e.Name() != filepath.Base(path) && e.Name() != settings.Namespace+".lock" {
			t.Errorf("unexpected file %s", e.Name())
		}
	}
}

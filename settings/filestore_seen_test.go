package settings_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
)

// renameDoc replaces the namespace document by rename, as another process
// writes it, giving the new file the modification time of the old one.
func renameDoc(t *testing.T, path, doc string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".other.tmp"
	if err := os.WriteFile(tmp, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func describe(t *testing.T, fs *settings.FileStore) hostapi.Namespace {
	t.Helper()
	n, err := fs.Describe(context.Background(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A settled document is served from a stat, and a rewrite by rename — even
// one of the same size and modification time — is seen at once.
func TestDescribeSeesARenamedRewrite(t *testing.T) {
	settings.SettleAfter(t, -time.Hour)
	reads := settings.CountReads(t)
	fs, path := fileStoreWith(t, `{"revision":1,"value":{"k":1}}`)
	if n := describe(t, fs); n.Revision != 1 || string(n.Value) != `{"k":1}` {
		t.Fatalf("first read %s at %d", n.Value, n.Revision)
	}
	for range 3 {
		describe(t, fs)
	}
	if reads.Load() != 1 {
		t.Fatalf("%d reads of an unchanged settled file, want 1", reads.Load())
	}
	renameDoc(t, path, `{"revision":2,"value":{"k":2}}`)
	if n := describe(t, fs); n.Revision != 2 || string(n.Value) != `{"k":2}` {
		t.Fatalf("after a rename: %s at %d, want revision 2", n.Value, n.Revision)
	}
	if _, err := fs.Mutate(context.Background(), ns, []hostapi.Op{{Op: "set", Path: []string{"k"}, Value: []byte(`3`)}}, 2); err != nil {
		t.Fatal(err)
	}
	if n := describe(t, fs); n.Revision != 3 || string(n.Value) != `{"k":3}` {
		t.Fatalf("after this store's write: %s at %d, want revision 3", n.Value, n.Revision)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if n := describe(t, fs); n.Revision != 0 || string(n.Value) != `{}` {
		t.Fatalf("after removal: %s at %d, want {} at 0", n.Value, n.Revision)
	}
}

// A file written within the settle time is read again on every Describe,
// so an edit in place that keeps its size and modification time is seen.
func TestDescribeRereadsAFreshFile(t *testing.T) {
	reads := settings.CountReads(t)
	fs, path := fileStoreWith(t, `{"revision":1,"value":{"k":1}}`)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	describe(t, fs)
	if err := os.WriteFile(path, []byte(`{"revision":2,"value":{"k":2}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if n := describe(t, fs); n.Revision != 2 || string(n.Value) != `{"k":2}` {
		t.Fatalf("after an edit in place: %s at %d, want revision 2", n.Value, n.Revision)
	}
	if reads.Load() != 2 {
		t.Fatalf("%d reads, want 2 (a fresh file is never trusted from a stat)", reads.Load())
	}
}

// A stale read never reaches a compare-and-swap: a write computed from
// revision 1 after another process wrote revision 2 is a conflict, and the
// next read shows revision 2.
func TestWriteFromAnOlderReadConflicts(t *testing.T) {
	settings.SettleAfter(t, -time.Hour)
	ctx := context.Background()
	fs, path := fileStoreWith(t, `{"revision":1,"value":{}}`)
	other, err := settings.OpenFileStore(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	base := describe(t, fs)
	set := []hostapi.Op{{Op: "set", Path: []string{"k"}, Value: []byte(`1`)}}
	if _, err := other.Mutate(ctx, ns, set, base.Revision); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Mutate(ctx, ns, set, base.Revision); !diag.Has(err, settings.HostConflict) {
		t.Fatalf("write from revision 1 after revision 2: %v, want %s", err, settings.HostConflict)
	}
	if n := describe(t, fs); n.Revision != 2 {
		t.Fatalf("read after the other write: revision %d, want 2", n.Revision)
	}
}

// Describe's value is the caller's own: editing it changes no later read.
func TestDescribeValueIsTheCallersOwn(t *testing.T) {
	settings.SettleAfter(t, -time.Hour)
	fs, _ := fileStoreWith(t, `{"revision":1,"value":{"k":1}}`)
	n := describe(t, fs)
	for i := range n.Value {
		n.Value[i] = 'x'
	}
	if again := describe(t, fs); string(again.Value) != `{"k":1}` {
		t.Fatalf("a caller's edit reached the next read: %s", again.Value)
	}
}

// A malformed document is reported on every read, also after a good one.
func TestDescribeReportsAMalformedRewrite(t *testing.T) {
	settings.SettleAfter(t, -time.Hour)
	fs, path := fileStoreWith(t, `{"revision":1,"value":{}}`)
	describe(t, fs)
	renameDoc(t, path, `{"revision":1,"value":{},"value":{}}`)
	for range 2 {
		if _, err := fs.Describe(context.Background(), ns); !diag.Has(err, diag.SettingsInvalid) {
			t.Fatalf("malformed document: %v, want %s", err, diag.SettingsInvalid)
		}
	}
}

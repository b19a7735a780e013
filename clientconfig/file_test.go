package clientconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyUndo: an applied edit saves the file as it was; undo restores
// its bytes and mode exactly and removes the backup and the record; a
// second configure keeps the first backup.
func TestApplyUndo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	before := "# mine\nmodel = \"m\"\n"
	if err := os.WriteFile(path, []byte(before), 0o640); err != nil {
		t.Fatal(err)
	}
	codex, _ := Lookup("codex")
	for _, port := range []string{"8788", "9999"} {
		ch, err := Plan(codex, path, Settings{ProxyURL: "http://127.0.0.1:" + port})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(ch.Diff(), "+base_url = \"http://127.0.0.1:"+port+"/v1\"") {
			t.Fatalf("diff:\n%s", ch.Diff())
		}
		if err := ch.Apply(); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(path + BackupSuffix); string(b) != before {
		t.Fatalf("backup %q", b)
	}
	ch, _ := Plan(codex, path, Settings{ProxyURL: "http://127.0.0.1:9999"})
	if ch.Changed() {
		t.Fatalf("configure twice with the same settings changes the file:\n%s", ch.Diff())
	}
	if _, err := Undo(path, false); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if string(b) != before || info.Mode().Perm() != 0o640 {
		t.Fatalf("after undo: %q %v", b, info.Mode())
	}
	for _, f := range []string{path + BackupSuffix, path + RecordSuffix} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind: %v", f, err)
		}
	}
	if _, err := Undo(path, false); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("a second undo: %v", err)
	}
}

// TestUndoCreatedFile: a file continuity created goes away on undo, with
// the directories it created for it.
func TestUndoCreatedFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".pi", "agent", "models.json")
	pi, _ := Lookup("pi")
	ch, err := Plan(pi, path, proxyAt)
	if err != nil || ch.Existed {
		t.Fatal(err, ch.Existed)
	}
	if err := ch.Apply(); err != nil {
		t.Fatal(err)
	}
	if target, err := pi.Target(path, proxyAt); err != nil || target != proxyAt.BaseURL() {
		t.Fatalf("%q %v", target, err)
	}
	if _, err := Undo(path, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".pi")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("undo left %s: %v", filepath.Join(home, ".pi"), err)
	}
}

// TestUndoRefusesLaterEdits: a file changed after configure is not
// overwritten by undo unless forced; a malformed file is never written.
func TestUndoRefusesLaterEdits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.json")
	oc, _ := Lookup("opencode")
	ch, _ := Plan(oc, path, proxyAt)
	if err := ch.Apply(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{\"theme\": \"mine\"}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(path, false); !errors.Is(err, ErrChangedSince) {
		t.Fatalf("undo over a later edit: %v", err)
	}
	if _, err := Undo(path, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("forced undo kept the file continuity created")
	}
	bad := "{\"provider\": "
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Plan(oc, path, proxyAt); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), path) {
		t.Fatalf("malformed: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != bad {
		t.Fatal("a malformed file was changed")
	}
}

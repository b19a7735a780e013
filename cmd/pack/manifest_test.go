package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackedManifestAddsOnlyOptionalDependencies: the packed manifest is
// the development one's bytes with optionalDependencies on all five
// platform packages at the extension's version, and nothing else changed.
func TestPackedManifestAddsOnlyOptionalDependencies(t *testing.T) {
	ext, err := readExtension("testdata")
	if err != nil {
		t.Fatal(err)
	}
	packed, err := ext.packedManifest()
	if err != nil {
		t.Fatal(err)
	}
	dev := bytes.TrimRight(ext.manifest, "}\n ")
	if !bytes.HasPrefix(packed, dev) {
		t.Fatalf("the packed manifest does not keep the development bytes:\n%s", packed)
	}
	var got, orig map[string]json.RawMessage
	if err := json.Unmarshal(packed, &got); err != nil {
		t.Fatalf("packed manifest: %v\n%s", err, packed)
	}
	if err := json.Unmarshal(ext.manifest, &orig); err != nil {
		t.Fatal(err)
	}
	for k, v := range orig {
		if !bytes.Equal(got[k], v) {
			t.Errorf("%s changed: %s → %s", k, v, got[k])
		}
	}
	var deps map[string]string
	if err := json.Unmarshal(got["optionalDependencies"], &deps); err != nil {
		t.Fatal(err)
	}
	if len(deps) != len(targets) || len(got) != len(orig)+1 {
		t.Fatalf("optionalDependencies %v; members %d, want %d", deps, len(got), len(orig)+1)
	}
	for _, tg := range targets {
		if deps[tg.packageName()] != "1.2.3" {
			t.Errorf("%s: %q, want the extension's version 1.2.3", tg.packageName(), deps[tg.packageName()])
		}
	}
}

func TestPlatformManifest(t *testing.T) {
	ext, err := readExtension("testdata")
	if err != nil {
		t.Fatal(err)
	}
	win, _ := targetNamed("win32-x64")
	b, err := ext.platformManifest(win)
	if err != nil {
		t.Fatal(err)
	}
	var m platformManifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Name != "@continuity-dev/continuity-win32-x64" || m.Version != "1.2.3" || m.License != "MIT" ||
		len(m.OS) != 1 || m.OS[0] != "win32" || len(m.CPU) != 1 || m.CPU[0] != "x64" {
		t.Fatalf("platform manifest: %s", b)
	}
	if readme := string(ext.platformReadme(win)); !strings.Contains(readme, "@continuity-dev/continuity and @continuity-dev/pi-continuity start; install one of them") {
		t.Fatalf("README: %s", readme)
	}
}

// TestReadExtensionRefuses: a manifest the packages cannot be made from
// is refused with what is wrong, before anything is built.
func TestReadExtensionRefuses(t *testing.T) {
	for _, c := range []struct{ manifest, want string }{
		{`[]`, "is not a JSON object"},
		{`{"name":"x","version":`, "is not a JSON object"},
		{`{"version":"1.0.0"}`, "has no name"},
		{`{"name":"x"}`, `version "" is not a semantic version`},
		{`{"name":"x","version":"^1.0.0"}`, `version "^1.0.0" is not a semantic version`},
		{`{"name":"x","version":"1.0.0","optionalDependencies":{}}`, "already has optionalDependencies"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(c.manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readExtension(dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.manifest, err, c.want)
		}
	}
	if _, err := readExtension(t.TempDir()); err == nil || !strings.Contains(err.Error(), "reading the extension's manifest") {
		t.Errorf("no manifest: %v", err)
	}
}

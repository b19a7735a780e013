package uicontract_test

import (
	"encoding/json"
	"os"
	"testing"

	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// TestManifest validates the module's manifest.json against its schema;
// that it states what the binary reports is checked through the binary
// (plugin's TestManifestMatchesWhatTheBinaryReports).
func TestManifest(t *testing.T) {
	b, err := os.ReadFile("../manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := uicontract.Validate("manifest", b); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
}

// TestManifestRefusals shows the manifest schema refuses what matters: a
// data directory declared to hold secrets, and an unknown top-level member.
func TestManifestRefusals(t *testing.T) {
	b, err := os.ReadFile("../manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(map[string]any){
		"secrets":      func(m map[string]any) { m["dataDir"].(map[string]any)["secrets"] = true },
		"extra member": func(m map[string]any) { m["autostart"] = true },
		"bad purpose": func(m map[string]any) {
			m["capabilities"].(map[string]any)["payloadFilter"].(map[string]any)["purposes"] = []any{"embedding"}
		},
		"wrong version": func(m map[string]any) { m["protocolVersion"] = "2" },
	} {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		mutate(m)
		if err := uicontract.ValidateValue("manifest", m); err == nil {
			t.Errorf("%s: manifest schema accepted it", name)
		}
	}
}

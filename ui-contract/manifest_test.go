package uicontract_test

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// TestManifest validates the module's manifest.json against its schema and
// checks that it states the capabilities initialize reports, as the example
// initialize result in testdata shows them (PROTOCOL.md §3).
func TestManifest(t *testing.T) {
	b, err := os.ReadFile("../manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := uicontract.Validate("manifest", b); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	var m struct {
		Capabilities struct {
			PayloadFilter any      `json:"payloadFilter"`
			Remotes       any      `json:"remotes"`
			Tools         []string `json:"tools"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var init struct {
		Capabilities struct {
			PayloadFilter any `json:"payloadFilter"`
			Remotes       any `json:"remotes"`
			Tools         []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"capabilities"`
	}
	found := false
	for _, e := range loadExamples(t)["host-to-plugin.json"] {
		if e.Schema == "wire/initialize.result" && e.Valid && e.Note == "" {
			if err := json.Unmarshal(e.Doc, &init); err != nil {
				t.Fatal(err)
			}
			found = true
			break
		}
	}
	if !found {
		t.Fatal("no ready initialize.result example to compare with")
	}
	if !reflect.DeepEqual(m.Capabilities.PayloadFilter, init.Capabilities.PayloadFilter) {
		t.Errorf("payloadFilter: manifest %v, initialize %v", m.Capabilities.PayloadFilter, init.Capabilities.PayloadFilter)
	}
	if !reflect.DeepEqual(m.Capabilities.Remotes, init.Capabilities.Remotes) {
		t.Errorf("remotes: manifest %v, initialize %v", m.Capabilities.Remotes, init.Capabilities.Remotes)
	}
	var tools []string
	for _, tl := range init.Capabilities.Tools {
		tools = append(tools, tl.Name)
	}
	if !reflect.DeepEqual(m.Capabilities.Tools, tools) {
		t.Errorf("tools: manifest %v, initialize %v", m.Capabilities.Tools, tools)
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

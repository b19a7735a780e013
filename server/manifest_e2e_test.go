package server_test

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/server"
)

// manifest.json states what the binary reports: the capabilities, protocol
// version and version initialize answers to a host offering everything.
func TestManifestMatchesWhatTheBinaryReports(t *testing.T) {
	b, err := os.ReadFile("../manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Version         string `json:"version"`
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			PayloadFilter json.RawMessage `json:"payloadFilter"`
			Remotes       []string        `json:"remotes"`
			Tools         []string        `json:"tools"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	h := startHost(t, host.Config{})
	got, err := h.Initialize(ctxT(t), host.AllCapabilities())
	if err != nil {
		t.Fatal(err)
	}
	var caps struct {
		PayloadFilter json.RawMessage `json:"payloadFilter"`
		Remotes       []string        `json:"remotes"`
		Tools         []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(got.Capabilities, &caps); err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, tl := range caps.Tools {
		tools = append(tools, tl.Name)
	}
	if m.Version != got.ServerInfo.Version || m.Version != server.Version || m.ProtocolVersion != got.ProtocolVersion {
		t.Errorf("manifest version %s protocol %s; binary reports %s protocol %s", m.Version, m.ProtocolVersion, got.ServerInfo.Version, got.ProtocolVersion)
	}
	if !jsonEqual(m.Capabilities.PayloadFilter, caps.PayloadFilter) {
		t.Errorf("payloadFilter: manifest %s, binary %s", m.Capabilities.PayloadFilter, caps.PayloadFilter)
	}
	if !reflect.DeepEqual(m.Capabilities.Remotes, caps.Remotes) {
		t.Errorf("remotes: manifest %v, binary %v", m.Capabilities.Remotes, caps.Remotes)
	}
	if !reflect.DeepEqual(m.Capabilities.Tools, tools) {
		t.Errorf("tools: manifest %v, binary %v", m.Capabilities.Tools, tools)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

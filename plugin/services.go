package plugin

import (
	"context"
	"os"
)

// services holds the feature services of an initialized connection.
type services struct {
	dataDir string
	caps    hostCapabilities
}

// capabilities is what initialize reports (and manifest.json repeats).
type capabilities struct {
	PayloadFilter payloadFilterCaps `json:"payloadFilter"`
	Remotes       []string          `json:"remotes"`
	Tools         []toolDef         `json:"tools"`
}

type payloadFilterCaps struct {
	Providers []string `json:"providers"`
	APIs      []string `json:"apis"`
	Purposes  []string `json:"purposes"`
}

type toolDef struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	InputSchema any    `json:"inputSchema"`
}

func (s *Server) startServices(ctx context.Context, dataDir string, caps hostCapabilities) (*services, activation, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, activation{}, err
	}
	return &services{dataDir: dataDir, caps: caps}, activation{State: "ready"}, nil
}

func (svc *services) capabilities() capabilities {
	return capabilities{
		PayloadFilter: payloadFilterCaps{
			Providers: []string{"github-copilot-preview"},
			APIs:      []string{"openai-responses"},
			Purposes:  []string{"chat", "compaction"},
		},
		Remotes: []string{"githubCopilotSessionContinuation", "continuity"},
		Tools:   []toolDef{},
	}
}

func (svc *services) close() {}

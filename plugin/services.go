package plugin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/turns"
)

// services holds the feature services of an initialized connection.
type services struct {
	dataDir string
	caps    hostCapabilities
	policy  *settings.Policy
	turns   *turns.Manager
	// activationErr is nil once the creation-time epoch is in place.
	activationErr atomic.Pointer[error]
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

// startServices opens the stores in dataDir, picks host or embedded
// settings, runs activation, and builds the feature services.
func (s *Server) startServices(ctx context.Context, dataDir string, caps hostCapabilities) (*services, activation, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, activation{}, fmt.Errorf("data directory: %w", err)
	}
	svc := &services{dataDir: dataDir, caps: caps}
	var store hostapi.Settings = s.host
	if !caps.Settings {
		fs, err := settings.OpenFileStore(filepath.Join(dataDir, "settings"))
		if err != nil {
			return nil, activation{}, fmt.Errorf("embedded settings: %w", err)
		}
		store = fs
	}
	svc.policy = settings.NewPolicy(store, settings.WithClock(s.cfg.Now))
	act := activation{State: "ready"}
	if err := svc.policy.Activate(ctx); err != nil {
		code := diag.CodeOf(err)
		if code == "" {
			code = diag.InitializationFailed
		}
		act = activation{State: "failed", Code: code}
		s.log.Error("activation failed", zapCode(code))
		svc.activationErr.Store(&err)
	}
	var agents hostapi.Agents = s.host
	svc.turns = turns.New(turns.Options{
		Policy:         svc.policy,
		Agents:         agents,
		Emitter:        s.host,
		Now:            s.cfg.Now,
		StripPairedIDs: true,
		Ready:          svc.ready,
	})
	return svc, act, nil
}

// ready reports whether activation succeeded.
func (svc *services) ready() error {
	if p := svc.activationErr.Load(); p != nil {
		return *p
	}
	return nil
}

// observe forwards a session event to the features that read history.
func (svc *services) observe(ev hostapi.SessionEvent) {}

func (svc *services) capabilities() capabilities {
	return capabilities{
		PayloadFilter: payloadFilterCaps{
			Providers: []string{turns.Provider},
			APIs:      []string{"openai-responses"},
			Purposes:  []string{"chat", "compaction"},
		},
		Remotes: []string{"githubCopilotSessionContinuation", "continuity"},
		Tools:   []toolDef{},
	}
}

func (svc *services) close() {
	svc.turns.Close()
}

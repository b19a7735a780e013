package server

import (
	"context"
	"os"
	"path/filepath"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/turns"
	"github.com/continuity-dev/continuity/wire"
	"go.uber.org/zap"
)

// initializeParams is docs/protocol.md §3 initialize.
type initializeParams struct {
	ProtocolVersion string `json:"protocolVersion"`
	Host            struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"host"`
	DataDir      string           `json:"dataDir,omitempty"`
	Capabilities hostCapabilities `json:"capabilities"`
	// PayloadProviders names the host's providers whose Responses calls
	// take part; absent or null is the default set.
	PayloadProviders *[]string `json:"payloadProviders,omitempty"`
}

type hostCapabilities struct {
	Settings     bool `json:"settings"`
	Agents       bool `json:"agents"`
	Sessions     bool `json:"sessions"`
	RemoteEvents bool `json:"remoteEvents"`
	// Runs says the host can start a successor's first run (session/run,
	// docs/protocol.md §16.5).
	Runs bool `json:"runs"`
	// Sources says the host can open cited resource and memory sources
	// (source/open, docs/protocol.md §16.11).
	Sources bool `json:"sources"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion string       `json:"protocolVersion"`
	ServerInfo      serverInfo   `json:"serverInfo"`
	Activation      activation   `json:"activation"`
	Capabilities    capabilities `json:"capabilities"`
}

// activation is initialize's account of what could start. A failed one
// names its code and, in reason, why in a sentence that holds no secret
// (a path, a system error), so the host need not read stderr.
type activation struct {
	State  string `json:"state"`
	Code   string `json:"code,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// initialize starts the feature services. The dispatcher opens or closes
// the init gate from its return (see initGate); a data directory that
// cannot be used is not a failed initialize but a failed activation, so
// the host learns why and what still works keeps working (services.go).
func (s *Server) initialize(ctx context.Context, p initializeParams) (any, error) {
	if p.ProtocolVersion != ProtocolVersion {
		return nil, &protocolError{code: wire.CodeInvalidParams,
			msg:  "unsupported protocol version",
			data: map[string]any{"code": diag.ProtocolVersionUnsupported, "supported": []string{ProtocolVersion}}}
	}
	providers, err := s.payloadProviders(p.PayloadProviders)
	if err != nil {
		return nil, err
	}
	if s.svc() != nil {
		return nil, &protocolError{code: wire.CodeInvalidRequest, msg: "already initialized"}
	}
	dir := p.DataDir
	if dir == "" {
		dir = s.cfg.DataDir
	}
	if dir == "" {
		dir = DefaultDataDir()
	}
	svc, act, err := s.startServices(ctx, dir, p.Capabilities, providers)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.services = svc
	s.mu.Unlock()
	s.log.Info("initialized", zapHost(p.Host.Name, p.Host.Version), zapState(act))
	return initializeResult{
		ProtocolVersion: ProtocolVersion,
		ServerInfo:      serverInfo{Name: "continuity", Version: Version},
		Activation:      act,
		Capabilities:    svc.capabilities(),
	}, nil
}

// payloadProviders reads initialize.payloadProviders: the names continuity
// can filter are accepted (and echoed), unknown ones are logged and left
// out, and a list with none it can filter is refused by name.
func (s *Server) payloadProviders(declared *[]string) (turns.Providers, error) {
	if declared == nil {
		return turns.DefaultProviders(), nil
	}
	providers, ignored, err := turns.NewProviders(*declared)
	if len(ignored) > 0 {
		s.log.Warn("payload providers not supported, left out", zap.Strings("providers", ignored))
	}
	if err != nil {
		return turns.Providers{}, &protocolError{code: wire.CodeInvalidParams,
			msg:  "initialize: payloadProviders: " + err.Error(),
			data: map[string]any{"code": diag.PayloadProvidersUnsupported, "supported": turns.SupportedProviders()}}
	}
	return providers, nil
}

func (s *Server) requestShutdown() {
	s.shutdownOnce.Do(func() { close(s.shutdown) })
}

// closeServices stops the background work (until ctx ends) and closes the
// store.
func (s *Server) closeServices(ctx context.Context) {
	if svc := s.svc(); svc != nil {
		svc.close(ctx)
	}
}

// DefaultDataDir is the user state directory's continuity/ folder: where
// the plugin keeps its data when neither initialize nor --data-dir names a
// directory, and so where the proxy and the policy command look too.
func DefaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "continuity")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "continuity")
	}
	return filepath.Join(os.TempDir(), "continuity")
}

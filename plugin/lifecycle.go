package plugin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/continuity-dev/continuity/wire"
)

// initializeParams is PROTOCOL.md §3 initialize.
type initializeParams struct {
	ProtocolVersion string `json:"protocolVersion"`
	Host            struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"host"`
	DataDir      string           `json:"dataDir,omitempty"`
	Capabilities hostCapabilities `json:"capabilities"`
}

type hostCapabilities struct {
	Settings     bool `json:"settings"`
	Agents       bool `json:"agents"`
	Sessions     bool `json:"sessions"`
	RemoteEvents bool `json:"remoteEvents"`
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

type activation struct {
	State string `json:"state"`
	Code  string `json:"code,omitempty"`
}

func (s *Server) initialize(ctx context.Context, raw []byte) (any, error) {
	var p initializeParams
	if err := json.Unmarshal(raw, &p); err != nil {
		s.disp.initialized(false)
		return nil, invalidParams("initialize: " + wire.DecodeError(err))
	}
	if p.ProtocolVersion != ProtocolVersion {
		s.disp.initialized(false)
		return nil, &protocolError{code: wire.CodeInvalidParams,
			msg:  "unsupported protocol version",
			data: map[string]any{"code": "PROTOCOL_VERSION_UNSUPPORTED", "supported": []string{ProtocolVersion}}}
	}
	s.mu.Lock()
	already := s.services != nil
	s.mu.Unlock()
	if already {
		return nil, &protocolError{code: wire.CodeInvalidRequest, msg: "already initialized"}
	}
	dir := p.DataDir
	if dir == "" {
		dir = s.cfg.DataDir
	}
	if dir == "" {
		dir = defaultDataDir()
	}
	svc, act, err := s.startServices(ctx, dir, p.Capabilities)
	if err != nil {
		s.disp.initialized(false)
		return nil, err
	}
	s.mu.Lock()
	if s.services != nil {
		s.mu.Unlock()
		svc.close()
		return nil, &protocolError{code: wire.CodeInvalidRequest, msg: "already initialized"}
	}
	s.services = svc
	s.mu.Unlock()
	s.disp.initialized(true)
	s.log.Info("initialized", zapHost(p.Host.Name, p.Host.Version), zapState(act))
	return initializeResult{
		ProtocolVersion: ProtocolVersion,
		ServerInfo:      serverInfo{Name: "continuity", Version: Version},
		Activation:      act,
		Capabilities:    svc.capabilities(),
	}, nil
}

func (s *Server) requestShutdown() {
	s.shutdownOnce.Do(func() { close(s.shutdown) })
}

func (s *Server) closeServices() {
	s.mu.Lock()
	svc := s.services
	s.mu.Unlock()
	if svc != nil {
		svc.close()
	}
}

// defaultDataDir is the user state directory's continuity/ folder.
func defaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "continuity")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "continuity")
	}
	return filepath.Join(os.TempDir(), "continuity")
}

package plugin

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/continuity-dev/continuity/boundary"
	"github.com/continuity-dev/continuity/continuation"
	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/remote"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/sqlstore"
	"github.com/continuity-dev/continuity/turns"
)

// services holds the feature services of an initialized connection.
type services struct {
	dataDir  string
	caps     hostCapabilities
	db       *sql.DB
	policy   *settings.Policy
	consent  *remote.Consent
	turns    *turns.Manager
	session  *remote.SessionContinuation
	cont     *continuation.Service
	boundary *boundary.Service
	decider  *decider
	models   *models
	tools    []toolDef
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
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// startServices opens the stores in dataDir, picks host or embedded
// settings, runs activation, and builds the feature services.
func (s *Server) startServices(ctx context.Context, dataDir string, caps hostCapabilities) (_ *services, _ activation, err error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, activation{}, fmt.Errorf("data directory: %w", err)
	}
	svc := &services{dataDir: dataDir, caps: caps, models: &models{m: map[string]continuation.Model{}}}
	defer func() {
		if err != nil {
			svc.close()
		}
	}()
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
	// Remote events go out only to a host that forwards them; a nil
	// interface (not a typed nil) tells the features to stay quiet.
	var emit hostapi.Emitter
	if caps.RemoteEvents {
		emit = s.host
	}
	svc.consent = remote.NewConsent()
	if svc.db, err = sqlstore.Open(dataDir); err != nil {
		return nil, activation{}, err
	}
	accounts, err := turns.OpenAccountStore(ctx, svc.db)
	if err != nil {
		return nil, activation{}, fmt.Errorf("account store: %w", err)
	}
	svc.turns = turns.New(turns.Options{
		Policy:         svc.policy,
		Consent:        svc.consent,
		Agents:         agentsCap(caps, s.host),
		Sessions:       sessionsCap(caps, s.host),
		Emitter:        emit,
		Now:            s.cfg.Now,
		StripPairedIDs: true,
		Ready:          svc.ready,
		Accounts:       accounts,
		Log:            s.log,
	})
	svc.session = remote.NewSessionContinuation(svc.policy, agentsCap(caps, s.host), svc.turns, emit, svc.consent)

	if svc.cont, err = continuation.Open(ctx, svc.db, s.host, emit, continuation.Options{Now: s.cfg.Now, TokenBudget: s.cfg.ProjectionBudget}); err != nil {
		return nil, activation{}, fmt.Errorf("continuation store: %w", err)
	}
	if svc.boundary, err = boundary.Open(ctx, svc.db, boundary.Options{Sessions: s.host, Now: s.cfg.Now}); err != nil {
		return nil, activation{}, fmt.Errorf("boundary store: %w", err)
	}
	svc.decider = newDecider(svc.boundary, s.log)
	if svc.tools, err = toolDefinitions(); err != nil {
		return nil, activation{}, err
	}
	return svc, act, nil
}

// ready reports whether activation succeeded.
func (svc *services) ready() error {
	if p := svc.activationErr.Load(); p != nil {
		return *p
	}
	return nil
}

func (svc *services) capabilities() capabilities {
	return capabilities{
		PayloadFilter: payloadFilterCaps{
			Providers: []string{turns.Provider},
			APIs:      []string{"openai-responses"},
			Purposes:  []string{"chat", "compaction"},
		},
		Remotes: []string{"githubCopilotSessionContinuation", "continuity"},
		Tools:   svc.tools,
	}
}

func (svc *services) close() {
	if svc.decider != nil {
		svc.decider.close()
	}
	if svc.turns != nil {
		svc.turns.Close()
	}
	if svc.db != nil {
		svc.db.Close()
	}
}

// sessionsCap is the host's session reads when it offers them, else a nil
// interface.
func sessionsCap(caps hostCapabilities, h hostapi.Sessions) hostapi.Sessions {
	if caps.Sessions {
		return h
	}
	return nil
}

// agentsCap is the host's agent lookup when it offers one, else a nil
// interface (birth evidence then comes only from session events).
func agentsCap(caps hostCapabilities, h hostapi.Agents) hostapi.Agents {
	if caps.Agents {
		return h
	}
	return nil
}

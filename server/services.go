package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"

	"go.uber.org/zap"

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
	log     *zap.Logger
	dataDir string
	caps    hostCapabilities
	// providers are the host's payloadProviders (the default set when it
	// declared none).
	providers turns.Providers
	db        *sql.DB
	policy    *settings.Policy
	consent   *remote.Consent
	turns     *turns.Manager
	// historyPolicy is the visible-history policy, the
	// githubCopilotSessionContinuation Remote.
	historyPolicy *remote.HistoryPolicy
	continuity    *remote.Continuity
	cont          *continuation.Service
	boundary      *boundary.Service
	decider       *decider
	accounts      *turns.AccountStore
	models        *models
	tools         []toolDef
	// activationErr is nil once the creation-time epoch is in place.
	activationErr atomic.Pointer[error]
	// storeErr is STORAGE_UNAVAILABLE when continuity.db could not be
	// opened; db, cont, boundary and decider are then nil.
	storeErr error
	// closing is set when close begins: from then on stored refuses new
	// users, and a request already past that check gets the closed
	// database's error from its query (database/sql refuses it; the
	// features wrap it as their store-failure code).
	closing atomic.Bool
}

// errStoreClosed answers a store-backed call that arrives while the plugin
// exits.
var errStoreClosed = diag.New(diag.StorageUnavailable, "the store is closed: the plugin is exiting")

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
// settings, runs activation, and builds the feature services. A data
// directory that cannot be created or written fails activation with
// STORAGE_UNAVAILABLE and a reason instead of failing initialize: what
// needs no disk keeps working (with host settings, the whole payload
// filter; always, the Remotes, which answer the code), and what does
// (session continuation, managed context, embedded settings) answers
// the code too.
func (s *Server) startServices(ctx context.Context, dataDir string, caps hostCapabilities, providers turns.Providers) (*services, activation, error) {
	svc := &services{log: s.log, dataDir: dataDir, caps: caps, providers: providers, models: &models{m: map[string]continuation.Model{}}}
	storeErr := usableDir(dataDir)
	var store hostapi.Settings = s.host
	if !caps.Settings {
		store = unavailableSettings{storeErr}
		if storeErr == nil {
			fs, err := settings.OpenFileStore(filepath.Join(dataDir, "settings"))
			if err != nil {
				storeErr = storageError("the embedded settings directory", err)
				store = unavailableSettings{storeErr}
			} else {
				store = fs
			}
		}
	}
	svc.policy = settings.NewPolicy(store, settings.WithClock(s.cfg.Now))
	act := activation{State: "ready"}
	if err := svc.policy.Activate(ctx); err != nil {
		if cut := interrupted(ctx); cut != nil {
			err = cut
		}
		act = failedActivation(err)
		s.log.Error("activation failed", zapCode(act.Code), zap.Error(err))
		svc.activationErr.Store(&err)
	}
	// Remote events go out only to a host that forwards them; a nil
	// interface (not a typed nil) tells the features to stay quiet.
	var emit hostapi.Emitter
	if caps.RemoteEvents {
		emit = s.host
	}
	svc.consent = remote.NewConsent()
	if storeErr == nil {
		storeErr = svc.openStore(ctx, s, dataDir, emit)
		if cut := interrupted(ctx); storeErr != nil && cut != nil {
			// The store did not fail: opening it was cut short, and the
			// data directory may be perfectly usable.
			if act.State == "ready" {
				s.log.Error("activation did not finish", zapCode(diag.InitializationFailed), zap.Error(cut))
			}
			svc.storeErr, act, storeErr = cut, failedActivation(cut), nil
		}
	}
	// A nil interface, not a typed nil, when the store could not open:
	// the account then lives only as long as the process.
	var accounts turns.Accounts
	if svc.accounts != nil {
		accounts = svc.accounts
	}
	svc.turns = turns.New(turns.Options{
		Policy:    svc.policy,
		Consent:   svc.consent,
		Agents:    agentsCap(caps, s.host),
		Sessions:  sessionsCap(caps, s.host),
		Emitter:   emit,
		Now:       s.cfg.Now,
		Providers: providers,
		Ready:     svc.ready,
		Accounts:  accounts,
		Base:      s.base,
		Log:       s.log,
	})
	svc.historyPolicy = remote.NewHistoryPolicy(svc.policy, agentsCap(caps, s.host), svc.turns, emit, svc.consent)
	svc.continuity = remote.NewContinuity(svc.continuityFeatures())
	if storeErr != nil {
		// The directory is the root cause of any policy failure too.
		svc.storeErr = storeErr
		act = failedActivation(storeErr)
		s.log.Error("data directory unusable", zapCode(diag.StorageUnavailable), zap.Error(storeErr))
	}
	var err error
	if svc.tools, err = toolDefinitions(caps.Sessions); err != nil {
		svc.close(ctx)
		return nil, activation{}, err
	}
	return svc, act, nil
}

// openStore opens continuity.db and the features that keep their state in
// it. On failure nothing stays open.
func (svc *services) openStore(ctx context.Context, s *Server, dataDir string, emit hostapi.Emitter) error {
	db, err := sqlstore.Open(dataDir)
	if err != nil {
		return storageError("the store", err)
	}
	cont, err := continuation.Open(ctx, db, s.host, emit, continuation.Options{Now: s.cfg.Now, TokenBudget: s.cfg.ProjectionBudget,
		Inherit: svc.inheritPolicy, Runs: runsCap(svc.caps, s.host),
		Sources: sourcesCap(svc.caps, s.host)})
	if err != nil {
		return storageError("the continuation store", errors.Join(err, db.Close()))
	}
	b, err := boundary.Open(ctx, db, boundary.Options{Sessions: s.host, Emit: emit, Now: s.cfg.Now})
	if err != nil {
		return storageError("the boundary store", errors.Join(err, db.Close()))
	}
	accounts, err := turns.OpenAccountStore(ctx, db)
	if err != nil {
		return storageError("the account store", errors.Join(err, db.Close()))
	}
	svc.db, svc.cont, svc.boundary, svc.accounts = db, cont, b, accounts
	svc.decider = newDecider(s.base, b, s.log)
	return nil
}

// interrupted is the activation failure of an initialize whose request was
// cancelled — the host's input ended, it asked to shut down or cancelled
// initialize — so that the host reads that cause, not the "context
// canceled" of whichever store or settings call was running when it came.
func interrupted(ctx context.Context) error {
	cause := context.Cause(ctx)
	if cause == nil {
		return nil
	}
	return diag.Wrap(diag.InitializationFailed, "activation did not finish: "+cause.Error()+
		"; keep the plugin's stdin open until the initialize answer arrives", cause)
}

// usableDir creates dir when it is missing.
func usableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return storageError("the data directory", err)
	}
	return nil
}

// storageError is STORAGE_UNAVAILABLE for what could not be opened. The
// cause is kept for the log; the message names the part and the system
// error (a path and an errno text, never stored content).
func storageError(what string, err error) error {
	return diag.Wrap(diag.StorageUnavailable, what+" cannot be used: "+err.Error(), err)
}

// failedActivation is the activation a failure reports: its code, or
// INITIALIZATION_FAILED for an error without one, and its message.
func failedActivation(err error) activation {
	b := diag.BodyOf(err, diag.InitializationFailed)
	return activation{State: "failed", Code: b.Code, Reason: b.Message}
}

// unavailableSettings is the embedded settings store of a data directory
// that cannot be used: every read and write fails with the reason, so the
// policy, its Remotes and admission answer STORAGE_UNAVAILABLE instead of
// the connection refusing everything.
type unavailableSettings struct{ err error }

func (u unavailableSettings) Describe(context.Context, string) (hostapi.Namespace, error) {
	return hostapi.Namespace{}, u.err
}

func (u unavailableSettings) Mutate(context.Context, string, []hostapi.Op, int64) (int64, error) {
	return 0, u.err
}

// stored reports whether the store-backed features (session continuation,
// managed context) can run.
func (svc *services) stored() error {
	if svc.closing.Load() {
		return errStoreClosed
	}
	return svc.storeErr
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
			Providers: svc.providers.Names(),
			APIs:      []string{"openai-responses"},
			Purposes:  []string{"chat", "compaction"},
		},
		Remotes: remoteNamespaces,
		Tools:   svc.tools,
	}
}

// close stops the background queues (each runs its queued work until ctx
// ends and returns once its goroutine has) and then closes the store,
// which no goroutine uses any more.
func (svc *services) close(ctx context.Context) {
	svc.closing.Store(true)
	if svc.decider != nil {
		svc.decider.close(ctx)
	}
	if svc.turns != nil {
		svc.turns.Close(ctx)
	}
	if svc.db != nil {
		if err := svc.db.Close(); err != nil {
			svc.log.Warn("closing the store", zap.Error(err))
		}
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

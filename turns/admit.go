package turns

import (
	"context"
	"sync"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/hostapi"
)

// Where an admission's policy came from (agent/request result).
const (
	SourceSession  = "session"
	SourceDefault  = "default"
	SourceNextTurn = "next-turn"
)

// AgentRequest is the params of agent/request.
type AgentRequest struct {
	SessionID string `json:"sessionId"`
	Turn      int64  `json:"turn"`
	Step      int64  `json:"step"`
	RequestID string `json:"requestId"`
	Config    struct {
		Provider        string `json:"provider"`
		Model           string `json:"model"`
		ReasoningEffort string `json:"reasoningEffort,omitempty"`
	} `json:"config"`
	AccountID string `json:"accountId,omitempty"`
}

// Admission is the agent/request result's admission member.
type Admission struct {
	Enabled bool   `json:"enabled"`
	Source  string `json:"source"`
}

// admission is one admitted turn: its captured policy, account and model,
// the filter baseline, and the requests bound to it.
type admission struct {
	sessionID string
	turn      int64
	enabled   bool   // the policy this turn runs with
	source    string // session, default or next-turn
	// persistent is the session policy without one-turn consent: it is
	// what a compaction inside this turn uses (consent never covers one).
	persistent bool
	account    string // AccountDigest of the account it runs on
	model      string
	filter     *filter.Turn

	mu      sync.Mutex
	revoked string // why the admission ended; "" while it runs
	counts  counts
	overlap overlap
}

func (a *admission) revoke(why string) {
	a.mu.Lock()
	if a.revoked == "" {
		a.revoked = why
	}
	a.mu.Unlock()
}

// revokedErr is the filter's revocation check: nil while the admission runs.
func (a *admission) revokedErr() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.revoked == "" {
		return nil
	}
	return diag.New(diag.Revoked, a.revoked)
}

// Admit handles agent/request: the first request of a turn captures the
// resolved policy, account and model (consuming a one-turn consent); later
// requests of the turn are bound to that admission. Other providers are not
// admitted (nil, nil).
func (m *Manager) Admit(ctx context.Context, req AgentRequest) (*Admission, error) {
	managed := m.opt.Providers.takesPart(req.Config.Provider)
	m.noteRoute(req.SessionID, managed)
	if !managed {
		return nil, nil
	}
	if req.Turn < 0 || req.Step < 1 || req.RequestID == "" {
		return nil, diag.New(diag.TurnInvalid, "turn must be ≥ 0, step ≥ 1 and requestId non-empty")
	}
	if err := m.opt.Ready(); err != nil {
		return nil, diag.New(diag.InitializationFailed, "the visible-history policy could not be activated; admission is blocked")
	}
	m.mu.Lock()
	s := m.sessionLocked(req.SessionID)
	m.mu.Unlock()
	// One admission at a time per session: resolving the policy calls the
	// host, and two first requests of one turn must share one admission.
	s.admitMu.Lock()
	defer s.admitMu.Unlock()

	m.mu.Lock()
	if s.disposed {
		m.mu.Unlock()
		return nil, diag.New(diag.Revoked, "the agent was disposed")
	}
	a, err := m.existingLocked(s, req)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	if a != nil {
		m.requests.bind(req.RequestID, a)
		m.mu.Unlock()
		if req.Step == 1 {
			a.expectFirst(req.RequestID)
		}
		return &Admission{Enabled: a.enabled, Source: a.source}, nil
	}
	header := s.header
	account := AccountDigest(req.AccountID)
	m.mu.Unlock()

	if header == nil && m.opt.Agents != nil {
		// A lookup that fails leaves the birth evidence unknown, which
		// resolves to off unless the session has its own row; it does not
		// fail the turn (only cancellation does).
		ag, err := m.opt.Agents.Get(ctx, req.SessionID)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			header = ag.Header
		}
	}
	res, err := m.opt.Policy.Resolve(ctx, req.SessionID, header)
	if err != nil {
		return nil, err
	}
	// Only a turn that could pause needs the account of earlier
	// processes (the database, the host's log); otherwise what this
	// process saw decides whether the kept digest changes.
	pausable := account != "" && !res.Enabled && !m.consentPending(req.SessionID)
	prev := m.LastAccount(req.SessionID)
	if pausable {
		prev = m.previousAccount(ctx, req.SessionID, header)
	}
	switch {
	case account == "":
		account = prev
	case account == prev:
	case pausable && prev != "" && !m.acceptedAccount(req.SessionID, account):
		return nil, m.accountSwitchPause(req.SessionID, req.Turn, account)
	default:
		m.keepAccount(ctx, req.SessionID, account)
	}
	a = &admission{
		sessionID:  req.SessionID,
		turn:       req.Turn,
		enabled:    res.Enabled,
		source:     res.Source,
		persistent: res.Enabled,
		account:    account,
		model:      req.Config.Model,
		filter:     filter.NewTurn(filter.Options{StripPairedIDs: m.opt.Providers.stripsPairedIDs(req.Config.Provider), Prevalidated: true, NoCopy: true}),
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	// Notifications kept arriving while the host was asked: the turn may
	// have ended, the agent may be gone, the request may be cancelled.
	// Nothing is committed (and no consent consumed) in those cases.
	switch {
	case s.disposed:
		return nil, diag.New(diag.Revoked, "the agent was disposed")
	case req.Turn <= s.lastEnded:
		return nil, diag.Newf(diag.TurnInvalid, "turn %d has already ended", req.Turn)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	// A one-turn consent is spent by exactly this admission. It changes
	// the turn's policy only when the persistent policy is off; a
	// compaction inside the turn still uses the persistent policy.
	if m.opt.Consent != nil && m.opt.Consent.Consume(req.SessionID) && !a.enabled {
		a.enabled, a.source = true, SourceNextTurn
	}
	if header != nil && s.header == nil {
		s.header = header
	}
	if account != "" {
		s.account = account
	}
	if old := s.current; old != nil {
		m.requests.retire(old)
		m.retry408.forget(old)
	}
	s.current = a
	m.requests.bind(req.RequestID, a)
	if req.Step == 1 {
		a.expectFirst(req.RequestID)
	}
	s.notice.startTurn(req.Turn)
	return &Admission{Enabled: a.enabled, Source: a.source}, nil
}

// existingLocked returns the admission a request joins, an error when the
// request cannot be admitted, or (nil, nil) when a new admission is due.
// A turn is settled once turn/end came for it or its admission was revoked
// (cancellation, model or scope change): only then may a later turn start.
func (m *Manager) existingLocked(s *session, req AgentRequest) (*admission, error) {
	if req.Turn <= s.lastEnded {
		return nil, diag.Newf(diag.TurnInvalid, "turn %d has already ended", req.Turn)
	}
	a := s.current
	if a == nil || a.turn < req.Turn && a.revokedErr() != nil {
		return nil, nil
	}
	switch {
	case a.turn > req.Turn:
		return nil, diag.Newf(diag.TurnInvalid, "turn %d is older than the admitted turn %d", req.Turn, a.turn)
	case a.turn < req.Turn:
		return nil, diag.Newf(diag.TurnUnsettled, "turn %d has not ended", a.turn)
	}
	if req.Config.Model != a.model {
		a.revoke("the model changed during the turn")
	}
	return a, nil
}

// bound returns the admission a request id is bound to (live or ended).
func (m *Manager) bound(requestID string) *admission {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests.get(requestID)
}

// Header returns the birth evidence the session's events carried, or nil.
func (m *Manager) Header(sessionID string) *hostapi.SessionHeader { return m.headerOf(sessionID) }

// headerOf returns the header the Manager knows for a session.
func (m *Manager) headerOf(sessionID string) *hostapi.SessionHeader {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.sessions[sessionID]; s != nil {
		return s.header
	}
	return nil
}

// keepAccount saves a session's new account digest for later processes. A
// failed save is logged and never fails the turn: only an account switch
// after a restart depends on it.
func (m *Manager) keepAccount(ctx context.Context, sessionID, digest string) {
	if m.opt.Accounts == nil {
		return
	}
	if err := m.opt.Accounts.Save(ctx, sessionID, digest); err != nil {
		m.opt.Log.Warn("account digest not kept", zap.String("session", sessionID), zap.Error(err))
	}
}

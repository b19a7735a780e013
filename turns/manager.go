package turns

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/dshevent"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
)

// Policy resolves a session's persistent visible-history policy.
type Policy interface {
	Resolve(ctx context.Context, sessionID string, header *hostapi.SessionHeader) (settings.Resolution, error)
}

// Consent is the legacy one-turn consent store (authorizeNext).
type Consent interface {
	// Consume removes the session's one-turn consent and reports whether
	// there was one.
	Consume(sessionID string) bool
}

// Options configures a Manager.
type Options struct {
	Policy  Policy
	Consent Consent
	Agents  hostapi.Agents
	// Sessions, when set, lets an account switch after a restart find the
	// account of the session's earlier turns in the host's log.
	Sessions hostapi.Sessions
	Emitter  hostapi.Emitter
	Now      func() time.Time
	// Providers is whose payloads take part (the zero value: the default
	// set), each with its paired-id decision (docs/design.md §2.3).
	Providers Providers
	// Ready reports whether activation succeeded; admission is refused
	// with INITIALIZATION_FAILED while it returns a non-nil error.
	Ready func() error
	// Accounts, when set, keeps each session's account digest across
	// restarts (DSH names the account only in agent/request).
	Accounts Accounts
	// Base is the context the notice queue's sends derive from (the
	// connection's); nil means context.Background().
	Base context.Context
	// Log receives the named reasons why an event's effect was skipped and
	// the lines of notices that could not be sent; nil discards them.
	Log *zap.Logger
}

// Manager holds every session's turn and compaction state.
type Manager struct {
	opt      Options
	retry408 retries
	notices  *notifier
	// onPoll, when set (by tests of this package only), runs before every
	// revocation poll of a chat payload's filtering, so a test can end a
	// turn at an exact point of the hashing instead of racing it.
	onPoll func()

	mu       sync.Mutex
	sessions map[string]*session
	requests bindings
	clock    uint64 // bumped on every session access, for idle eviction
}

// session is what the Manager knows about one session.
type session struct {
	id      string
	header  *hostapi.SessionHeader
	account string // digest of the last account admitted with (or account/selected)
	// accepted is the account the person chose to go on with after an
	// account-switch pause (enable or keepOff): its next admission does
	// not pause again.
	accepted string
	// unmanaged is set while the session's latest agent/request was for
	// a provider that does not take part (continuity/accountSwitch then
	// answers notManaged, so a client can hide the control).
	unmanaged bool
	// once is a pending visible-history compaction grant (compactonce.go).
	once      *onceGrant
	admitMu   sync.Mutex
	current   *admission // the latest admission (possibly ended)
	lastEnded int64      // highest turn that ended, -1 when none
	disposed  bool       // agent/disposed arrived; the state is gone
	comp      *brackets
	notice    *noticeState
	touched   uint64 // Manager.clock at the last access
}

// New returns a Manager.
func New(opt Options) *Manager {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Ready == nil {
		opt.Ready = func() error { return nil }
	}
	if opt.Base == nil {
		opt.Base = context.Background()
	}
	if opt.Log == nil {
		opt.Log = zap.NewNop()
	}
	return &Manager{
		opt:      opt,
		retry408: retries{byID: map[string]*retryEntry{}},
		notices:  newNotifier(opt.Base, opt.Emitter, opt.Log),
		sessions: map[string]*session{},
		requests: newBindings(),
	}
}

// Close sends the queued notices until ctx ends and returns once the
// notice queue's goroutine has stopped.
func (m *Manager) Close(ctx context.Context) { m.notices.close(ctx) }

// HoldNotices keeps the notices published from now on from going to the
// host until release, in order: a request answered in the read loop holds
// them until its reply is written, so the host reads the answer first and
// the notice queue's goroutine wakes only once it is out.
func (m *Manager) HoldNotices() (release func()) { return m.notices.hold() }

// maxSessions bounds the sessions held in memory. A host that never sends
// agent/disposed would otherwise grow the map forever; idle sessions are
// evicted beyond it (their account and header come back from the host).
const maxSessions = 4096

// sessionLocked returns (creating) the state of sessionID; m.mu is held.
func (m *Manager) sessionLocked(id string) *session {
	s := m.sessions[id]
	if s == nil {
		if len(m.sessions) >= maxSessions {
			m.evictIdleLocked()
		}
		s = &session{id: id, lastEnded: -1, comp: newBrackets(), notice: &noticeState{}}
		m.sessions[id] = s
	}
	m.clock++
	s.touched = m.clock
	return s
}

// evictIdleLocked forgets the least recently used eighth of the sessions
// that have no running admission and no open compaction; m.mu is held.
func (m *Manager) evictIdleLocked() {
	var idle []*session
	for _, s := range m.sessions {
		running := s.current != nil && s.current.revokedErr() == nil
		if !running && len(s.comp.open) == 0 {
			idle = append(idle, s)
		}
	}
	sort.Slice(idle, func(i, j int) bool { return idle[i].touched < idle[j].touched })
	for _, s := range idle[:min(len(idle), max(1, maxSessions/8))] {
		if s.current != nil {
			m.retry408.forget(s.current)
		}
		m.requests.retireSession(s.id)
		delete(m.sessions, s.id)
	}
}

// Observe applies one session event (session.event or session/event).
// It reads only the members it needs, from the event's own bytes: a
// turn/end ends its turn whatever its reason says, and a member that does
// not read is logged with its reason and skips only this effect.
func (m *Manager) Observe(ev hostapi.SessionEvent) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(ev.SessionID)
	if ev.Header != nil {
		s.header = ev.Header
	}
	switch ev.Event.Type {
	case "turn/end":
		if turn, ok := m.turnOf(ev); ok {
			m.endTurnLocked(s, turn)
		}
	case "account/selected":
		if id := gjson.GetBytes(ev.Event.Data, "accountId"); id.Type == gjson.String && id.Str != "" {
			// A host that sends the event switched deliberately, after
			// its client asked continuity/accountSwitch (pi does): the
			// account is accepted, agent/request does not pause for it.
			s.account = AccountDigest(id.Str)
			s.accepted = s.account
		} else {
			m.skipped(ev, "account/selected: data.accountId is not a non-empty string")
		}
	case "compaction/start", "compaction/summary", "compaction/end", "user/message":
		m.observeCompactionLocked(s, ev)
	}
}

// turnOf reads data.turn as a turn (an integer from 0), logging why not.
func (m *Manager) turnOf(ev hostapi.SessionEvent) (int64, bool) {
	n, present, ok := dshevent.Turn(ev.Event.Data)
	if !present || !ok {
		m.skipped(ev, ev.Event.Type+": data.turn is not a non-negative integer")
		return 0, false
	}
	return n, true
}

// skipped logs an event effect that was not applied, with its reason. The
// reason names members, never their values.
func (m *Manager) skipped(ev hostapi.SessionEvent, reason string) {
	m.opt.Log.Warn("session event effect skipped", zap.String("session", ev.SessionID),
		zap.Int64("seq", ev.Event.Seq), zap.String("reason", reason))
}

// endTurnLocked ends the admission of turn (turn/end): later payloads for it
// are REVOKED, and the next turn may be admitted.
func (m *Manager) endTurnLocked(s *session, turn int64) {
	if turn > s.lastEnded {
		s.lastEnded = turn
	}
	s.notice.endTurn(turn)
	if a := s.current; a != nil && a.turn == turn {
		a.revoke("the turn ended")
		// No retry of an ended turn is served: its bytes go now.
		m.retry408.forget(a)
	}
}

// Dispose ends everything of a session (agent/disposed). The requests bound
// to it stay known as ended, so a late payload is REVOKED, not native.
func (m *Manager) Dispose(sessionID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[sessionID]
	if s == nil {
		return
	}
	s.disposed = true
	if a := s.current; a != nil {
		a.revoke("the agent was disposed")
		m.retry408.forget(a)
	}
	m.requests.retireSession(sessionID)
	s.comp.revokeAll("the agent was disposed")
	delete(m.sessions, sessionID)
}

// Cancelled revokes the admission bound to requestID: the host cancelled
// the turn's request, so nothing more of that turn may be filtered.
func (m *Manager) Cancelled(requestID string) {
	if a := m.bound(requestID); a != nil {
		a.revoke("the request was cancelled")
	}
}

// ActiveTurnEnabled reports the captured policy of the session's running
// admitted turn (for the SessionContinuationView).
func (m *Manager) ActiveTurnEnabled(sessionID string) (enabled bool, running bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[sessionID]
	if s == nil || s.current == nil || s.current.revokedErr() != nil {
		return false, false
	}
	return s.current.enabled, true
}

// Compaction reports the session's latest compaction bracket, if any.
func (m *Manager) Compaction(sessionID string) (id, state string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[sessionID]
	if s == nil {
		return "", "", false
	}
	return s.comp.latest()
}

// LastAccount returns the digest of the account the session's history was
// last made with: the latest admitted turn's account, else the last
// account/selected.
func (m *Manager) LastAccount(sessionID string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.sessions[sessionID]; s != nil {
		if a := s.current; a != nil && a.account != "" {
			return a.account
		}
		return s.account
	}
	return ""
}

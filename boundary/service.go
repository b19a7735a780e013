package boundary

import (
	"context"
	"database/sql"
	"sync"
	"unicode"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// Service runs managed-context boundaries for every session of one plugin
// process. Observe keeps an in-memory view per session, which is reset at a
// compaction checkpoint and forgotten at agent/disposed, not bounded in
// size; pins, durable witnesses and decision records live in SQLite, so a
// restart keeps them.
type Service struct {
	opts  Options
	store *store

	mu       sync.Mutex
	sessions map[string]*sessionState
}

// Open migrates the "boundary" component in db (the database the plugin
// shares between components) and returns a service over it.
func Open(ctx context.Context, db *sql.DB, opts Options) (*Service, error) {
	st, err := openStore(ctx, db)
	if err != nil {
		return nil, err
	}
	return &Service{opts: opts.withDefaults(), store: st, sessions: map[string]*sessionState{}}, nil
}

func (s *Service) state(sessionID string) *sessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessions[sessionID]
	if st == nil {
		st = &sessionState{}
		s.sessions[sessionID] = st
	}
	return st
}

// Observe folds one session event into the session's view. The lead calls
// it for every session event, in event order; it never blocks on the store.
// Replayed events (seq not above the last one seen) and events of a session
// id that breaks the sessionId rule change nothing.
func (s *Service) Observe(sessionID string, ev hostapi.Event) {
	if checkSessionID(sessionID) != nil {
		return
	}
	st := s.state(sessionID)
	s.mu.Lock()
	st.apply(ev)
	s.mu.Unlock()
}

// UnderPressure reports whether the session's latest usage event, newer
// than its last decision, crossed Options.PressureRatio: the lead then calls
// Decide with ContextPressure.
func (s *Service) UnderPressure(sessionID string) bool {
	st := s.state(sessionID)
	s.mu.Lock()
	defer s.mu.Unlock()
	return underPressure(st.usage, st.lastDecided, s.opts)
}

// Decide runs the seven-step procedure at a boundary and persists the
// decision record. A decision covers the events up to its boundary: the
// earliest undecided turn/end, compaction/start or pressing usage event of
// its trigger, so a decision queued behind the read loop does not take in
// the next turn's events (which would leave that turn's own boundary with
// nothing new); without such an event it covers everything observed. Store failures are CONTINUITY_BOUNDARY_STORE_FAILED and
// record nothing.
func (s *Service) Decide(ctx context.Context, sessionID string, at Trigger) (Decision, error) {
	if err := checkSessionID(sessionID); err != nil {
		return Decision{}, err
	}
	if !at.valid() {
		return Decision{}, diag.Newf(diag.BoundaryTriggerInvalid, "trigger %q is not a boundary", string(at))
	}
	st := s.state(sessionID)
	defer s.settle(st, at)
	st.decideMu.Lock()
	defer st.decideMu.Unlock()
	s.backfill(ctx, sessionID, st)
	s.mu.Lock()
	bound := st.boundFor(at, s.opts)
	snap := st.snapshot().through(bound, st.marks)
	s.mu.Unlock()
	now := s.opts.Now()

	var d Decision
	err := s.store.inTx(ctx, "decide", sessionID, func(q querier) error {
		if err := saveWitnesses(ctx, q, sessionID, snap.pending); err != nil {
			return err
		}
		if snap.fromStart && snap.firstUser != nil {
			p := NewPin(snap.firstUser.Seq, snap.firstUser.Text, SourceFirstUserMessage, "", sessionID, now)
			if err := establishDefault(ctx, q, sessionID, p); err != nil {
				return err
			}
		}
		pin, claimed, problem, err := readPin(ctx, q, sessionID)
		if err != nil {
			return err
		}
		if r := replacedPin(snap.view, sessionID, pin, problem, now); r != nil {
			if err := setPin(ctx, q, sessionID, *r); err != nil {
				return err
			}
			pin, claimed, problem = r, nil, ""
		}
		if pin != nil && pin.Source == SourceFirstUserMessage && snap.fromStart && snap.firstUser != nil &&
			(snap.firstUser.Seq != pin.EventID || snap.firstUser.Text != pin.Text) {
			pin, claimed, problem = nil, pin, PinProblemEventMismatch
		}
		witnesses, err := readWitnesses(ctx, q, sessionID)
		if err != nil {
			return err
		}
		last, lastThrough, _, err := latestDecision(ctx, q, sessionID)
		if err != nil {
			return err
		}
		in := input{
			sessionID: sessionID, trigger: at, pin: pin, pinProblem: problem, claimed: claimed,
			lastThrough: lastThrough, view: snap.view, witnesses: witnesses, usage: snap.usage,
			through: max(snap.lastSeq, lastThrough), seen: snap.seen, viewComplete: snap.fromStart, unreadable: snap.unreadable, at: now,
		}
		if last.Pin.Digest != nil && last.Pin.Recoverable {
			in.lastDigest = *last.Pin.Digest
		}
		d = decide(in, s.opts)
		d.ID, err = saveDecision(ctx, q, d, in.through)
		return err
	})
	if err != nil {
		return Decision{}, err
	}
	s.mu.Lock()
	st.pending = st.pending[len(snap.pending):]
	st.lastDecided = max(st.lastDecided, snap.lastSeq)
	s.mu.Unlock()
	s.announce(ctx, d)
	return d, nil
}

// PinTask records the agent's restatement of a replaced task (the pin_task
// tool). eventID is the seq of the user message that replaced the task; 0
// means the latest user message observed. The next boundary reseeds with
// reason task_changed.
func (s *Service) PinTask(ctx context.Context, sessionID string, eventID int64, text, reason string) (Pin, error) {
	if err := checkSessionID(sessionID); err != nil {
		return Pin{}, err
	}
	if err := checkPinInput(text, reason); err != nil {
		return Pin{}, err
	}
	st := s.state(sessionID)
	st.decideMu.Lock()
	defer st.decideMu.Unlock()
	s.mu.Lock()
	lastUser, seen, lastSeq := st.lastUserSeq, st.seen, st.lastSeq
	s.mu.Unlock()
	if eventID == 0 {
		eventID = lastUser
	}
	if eventID <= 0 || seen && eventID > lastSeq {
		return Pin{}, diag.New(diag.PinEventUnknown, "no observed user message to pin the task to").With("eventId", eventID)
	}
	p := NewPin(eventID, text, SourcePinTask, reason, sessionID, s.opts.Now())
	err := s.store.inTx(ctx, "pin task", sessionID, func(q querier) error { return setPin(ctx, q, sessionID, p) })
	if err != nil {
		return Pin{}, err
	}
	return p, nil
}

// InheritPin carries the predecessor's verified pin into a successor
// session created by continue_session, so the successor answers the same
// query: same digest, same originating event. It only ever sets a
// successor's first pin: a replayed continue_session (which the plugin
// answers, and so inherits, again) must not undo a task the successor has
// since pinned itself; the successor's own pin is returned instead.
func (s *Service) InheritPin(ctx context.Context, successorID, predecessorID string) (Pin, error) {
	for _, id := range []string{successorID, predecessorID} {
		if err := checkSessionID(id); err != nil {
			return Pin{}, err
		}
	}
	var out Pin
	err := s.store.inTx(ctx, "inherit pin", successorID, func(q querier) error {
		if own, _, problem, err := readPin(ctx, q, successorID); err != nil || problem != PinProblemNeverSeen {
			if own != nil {
				out = *own
			}
			return err
		}
		pin, _, problem, err := readPin(ctx, q, predecessorID)
		if err != nil {
			return err
		}
		if pin == nil {
			return diag.Newf(diag.PinUnrecoverable, "the predecessor's pin is %s", problem).With("problem", problem)
		}
		out = *pin
		out.Source, out.Reason, out.PinnedAt = SourceInherited, "continued from "+predecessorID, s.opts.Now().UTC()
		if out.OriginSession == "" {
			out.OriginSession = predecessorID
		}
		return setPin(ctx, q, successorID, out)
	})
	return out, err
}

// Latest returns the session's newest decision record.
func (s *Service) Latest(ctx context.Context, sessionID string) (Decision, bool, error) {
	if err := checkSessionID(sessionID); err != nil {
		return Decision{}, false, err
	}
	d, _, ok, err := latestDecision(ctx, s.store.db, sessionID)
	return d, ok, storeErr("latest decision", err)
}

// Dispose stores the session's pending witnesses and forgets its in-memory
// view (agent/disposed).
func (s *Service) Dispose(ctx context.Context, sessionID string) error {
	st := s.state(sessionID)
	st.decideMu.Lock()
	defer st.decideMu.Unlock()
	s.mu.Lock()
	pending := append([]Item(nil), st.pending...)
	s.mu.Unlock()
	err := s.store.inTx(ctx, "dispose", sessionID, func(q querier) error { return saveWitnesses(ctx, q, sessionID, pending) })
	if err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.sessions, sessionID)
	s.mu.Unlock()
	return nil
}

// checkSessionID applies the ui-contract sessionId rule: 1–256 characters,
// no control or format characters.
func checkSessionID(id string) error {
	bad := id == "" || len([]rune(id)) > 256
	for _, r := range id {
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) {
			bad = true
		}
	}
	if bad {
		return diag.New(diag.BoundaryArgumentsInvalid, "the session id is not 1–256 characters without control characters")
	}
	return nil
}

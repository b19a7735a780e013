package continuation

import (
	"context"
	"database/sql"
	"errors"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// The states of a successor's first run (TransitionCard.run.state).
const (
	RunStarted = "started"
	RunFailed  = "failed"
	// RunManual is a host that cannot start runs: the successor waits for
	// the person to send the message there.
	RunManual = "manual"
)

// Run actions on a transition card whose run failed to start.
const (
	ActionRetryRun = "retryRun"
)

// SuccessorRun is the transition card's run member: whether the successor
// is running. A failed start carries the host's error and the retry and
// back actions; manual carries the guidance text key saying what to do.
type SuccessorRun struct {
	State       string    `json:"state"`
	Error       *RunError `json:"error,omitempty"`
	Actions     []string  `json:"actions,omitempty"`
	GuidanceKey string    `json:"guidanceKey,omitempty"`
	At          int64     `json:"at"`
}

// RunError is why the host did not start a run: continuity's code, its
// message, and the host's own code when it gave one (the host's message is
// not repeated: it may quote the session).
type RunError struct {
	Code     string `json:"code"`
	Message  string `json:"message"`
	HostCode string `json:"hostCode,omitempty"`
}

// runFailedMessage is what a failed start says, and what to do.
const runFailedMessage = "the host did not start the successor's run; retry, or open the continuation and send the message there"

// startRun asks the host to start e's successor with the initiating
// message verbatim and the projection, and records the outcome. Without
// the host service the state is manual. A failure is recorded, not
// returned: the continuation stands, and the card shows it with retry.
func (s *Service) startRun(ctx context.Context, e *Edge) (SuccessorRun, error) {
	now := s.opts.Now().UnixMilli()
	if s.opts.Runs == nil {
		return s.saveRun(ctx, e.ID, SuccessorRun{State: RunManual, At: now})
	}
	msg, err := s.initiatingMessage(ctx, e)
	if err == nil {
		var started hostapi.RunStarted
		started, err = s.opts.Runs.StartRun(ctx, hostapi.StartRun{SessionID: e.SuccessorID, EdgeID: e.ID,
			PredecessorID: e.PredecessorID, Message: msg, Context: e.context})
		if err == nil && !started.Started {
			err = errors.New("the host answered started: false")
		}
	}
	if err != nil {
		re := &RunError{Code: diag.HostRunFailed, Message: runFailedMessage,
			HostCode: diag.CodeOf(err)}
		return s.saveRun(ctx, e.ID, SuccessorRun{State: RunFailed, Error: re, At: now})
	}
	return s.saveRun(ctx, e.ID, SuccessorRun{State: RunStarted, At: now})
}

// initiatingMessage reads the person's initiating user/message from the
// predecessor's log: its data, byte for byte.
func (s *Service) initiatingMessage(ctx context.Context, e *Edge) ([]byte, error) {
	seq, ok := parseEventID(e.InitiatingEventID)
	if !ok {
		return nil, diag.Newf(diag.InitiatingEventUnavailable, "edge %s names no initiating event", e.ID)
	}
	evs, err := s.sessions.Read(ctx, e.PredecessorID, seq, seq)
	if err != nil {
		return nil, err
	}
	for _, ev := range evs.Events {
		if ev.Seq == seq {
			return ev.Data, nil
		}
	}
	return nil, diag.Newf(diag.InitiatingEventUnavailable, "event %s of session %s is no longer readable", e.InitiatingEventID, e.PredecessorID)
}

func (s *Service) saveRun(ctx context.Context, edgeID string, r SuccessorRun) (SuccessorRun, error) {
	var code, msg string
	if r.Error != nil {
		code, msg = r.Error.Code, r.Error.HostCode
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO continuation_successor_runs(edge_id, state, code, host_code, at) VALUES(?,?,?,?,?)
		ON CONFLICT(edge_id) DO UPDATE SET state = excluded.state, code = excluded.code, host_code = excluded.host_code, at = excluded.at`,
		edgeID, r.State, code, msg, r.At)
	return decorate(r), storeErr("write successor run", err)
}

// loadRun returns the recorded run of an edge, nil when none was recorded
// (edges committed before runs were recorded).
func loadRun(ctx context.Context, db *sql.DB, edgeID string) (*SuccessorRun, error) {
	var r SuccessorRun
	var code, msg string
	err := db.QueryRowContext(ctx, `SELECT state, code, host_code, at FROM continuation_successor_runs WHERE edge_id = ?`, edgeID).
		Scan(&r.State, &code, &msg, &r.At)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr("read successor run", err)
	}
	if code != "" {
		r.Error = &RunError{Code: code, Message: runFailedMessage, HostCode: msg}
	}
	r = decorate(r)
	return &r, nil
}

// decorate adds what the card shows for a state: retry and back after a
// failed start, the guidance for a host that cannot start runs.
func decorate(r SuccessorRun) SuccessorRun {
	switch r.State {
	case RunFailed:
		r.Actions = []string{ActionRetryRun, ActionBack}
	case RunManual:
		r.GuidanceKey = "continuation.run.manual"
	}
	return r
}

// RetryRun serves continuity/startRun {edgeId}: it asks the host again to
// start the successor's run of a committed edge whose start failed (or
// that never started), and returns the new run state.
func (s *Service) RetryRun(ctx context.Context, edgeID string) (SuccessorRun, error) {
	e, err := edgeByID(ctx, s.db, edgeID)
	if err != nil {
		return SuccessorRun{}, storeErr("read edge", err)
	}
	if e == nil || !e.committed {
		return SuccessorRun{}, diag.Newf(diag.NotFound, "edge %s does not exist", edgeID).With("edgeId", edgeID)
	}
	if r, err := loadRun(ctx, s.db, edgeID); err != nil || r != nil && r.State == RunStarted {
		if r != nil {
			return *r, err
		}
		return SuccessorRun{}, err
	}
	return s.startRun(ctx, e)
}

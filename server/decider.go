package server

import (
	"context"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/boundary"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/internal/queue"
)

// decisionTimeout bounds one boundary decision (it may read the session
// from the host) and one disposal.
const decisionTimeout = 30 * time.Second

// maxQueuedBoundaryJobs bounds the boundary work waiting behind a slow
// host; beyond it the oldest job is dropped with a log line (the next
// boundary of that session decides again).
const maxQueuedBoundaryJobs = 4096

// maxPayloadHold bounds how long one llm/payload keeps boundary work
// waiting (holdForPayload): a 64 MiB payload's round trip, with room.
const maxPayloadHold = 250 * time.Millisecond

// decider runs managed-context boundary work off the read loop, in the
// order it arrived: the event that marks a boundary is observed
// synchronously, and the decision (which may read the session from the
// host) or a disposed agent's cleanup is queued to the one goroutine of
// the decider's queue. services.close closes it before the store.
type decider struct {
	b   *boundary.Service
	log *zap.Logger
	q   *queue.Queue[boundaryJob]
	// holding is set while a payload holds the queue (holdForPayload).
	holding atomic.Bool
}

// boundaryJob is one decision at a trigger, or (dispose) the removal of a
// disposed agent's boundary state, which must follow its decisions.
type boundaryJob struct {
	sessionID string
	at        boundary.Trigger
	dispose   bool
}

// newDecider starts the queue under base, the connection's context.
func newDecider(base context.Context, b *boundary.Service, log *zap.Logger) *decider {
	d := &decider{b: b, log: log}
	d.q = queue.New(base, d.run, queue.Options[boundaryJob]{Limit: maxQueuedBoundaryJobs,
		Dropped: func(j boundaryJob) {
			log.Warn("boundary work dropped: queue full or closed", zap.String("session", j.sessionID), zap.Bool("dispose", j.dispose))
		}})
	return d
}

// observe feeds one event to the boundary service and queues a decision
// when the event is a boundary: turn end, compaction start, or context
// pressure reported by an event that carries usage (boundary.ReportsUsage:
// the usage event, DSH's assistant/message and request/context).
func (d *decider) observe(ev hostapi.SessionEvent) {
	d.b.Observe(ev.SessionID, ev.Event)
	switch ev.Event.Type {
	case "turn/end":
		d.q.Push(boundaryJob{sessionID: ev.SessionID, at: boundary.TurnEnd})
	case "compaction/start":
		d.q.Push(boundaryJob{sessionID: ev.SessionID, at: boundary.CompactionStart})
	default:
		if boundary.ReportsUsage(ev.Event.Type) && d.b.UnderPressure(ev.SessionID) {
			d.q.Push(boundaryJob{sessionID: ev.SessionID, at: boundary.ContextPressure})
		}
	}
}

// holdForPayload keeps queued boundary work from starting until the
// returned release, which the llm/payload handler calls once its reply is
// written. Nothing waits on that work (turn/end only queues it and no
// reply depends on it), while the payload's reply is what the person's
// turn waits for: on two cores a decision's SQLite work that started in
// the middle of a 1 MiB round trip took a core from the filter and the
// pipe, and most round trips follow a turn/end by a moment. A job already
// running goes on. Decisions are delayed, never starved: one payload
// holds at a time (payloads of other sessions that overlap it take no
// hold of their own, so the queue runs between them) and a hold ends
// after maxPayloadHold whatever the payload.
func (d *decider) holdForPayload() (release func()) {
	if !d.holding.CompareAndSwap(false, true) {
		return func() {}
	}
	resume := d.q.Hold()
	t := time.AfterFunc(maxPayloadHold, resume)
	return func() {
		t.Stop()
		resume()
		d.holding.Store(false)
	}
}

// dispose queues the removal of a disposed agent's boundary state.
func (d *decider) dispose(sessionID string) {
	d.q.Push(boundaryJob{sessionID: sessionID, dispose: true})
}

func (d *decider) run(ctx context.Context, j boundaryJob) {
	ctx, cancel := context.WithTimeout(ctx, decisionTimeout)
	defer cancel()
	if j.dispose {
		if err := d.b.Dispose(ctx, j.sessionID); err != nil {
			d.log.Warn("boundary state of a disposed agent not removed", zap.String("session", j.sessionID), zap.Error(err))
		}
		return
	}
	dec, err := d.b.Decide(ctx, j.sessionID, j.at)
	if err != nil {
		d.log.Warn("boundary decision failed", zap.String("session", j.sessionID), zap.Error(err))
		return
	}
	d.log.Info("boundary decision", zap.String("session", j.sessionID), zap.String("decision", string(dec.Decision)), zap.String("reason", string(dec.Reason)))
}

// close runs the queued work until ctx ends, then cancels what still runs,
// and returns once the queue's goroutine has stopped.
func (d *decider) close(ctx context.Context) {
	if unrun := d.q.Close(ctx); unrun > 0 {
		d.log.Warn("boundary work left undone at exit", zap.Int("jobs", unrun))
	}
}

// observe forwards a session event to the features that read history
// (none while the store is unavailable).
func (svc *services) observe(ev hostapi.SessionEvent) {
	if svc.decider != nil {
		svc.decider.observe(ev)
	}
}

// dispose forgets a disposed agent everywhere.
func (svc *services) dispose(sessionID string) {
	svc.turns.Dispose(sessionID)
	svc.models.forget(sessionID)
	svc.consent.Revoke(sessionID)
	if svc.decider != nil {
		svc.decider.dispose(sessionID)
	}
}

package plugin

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/boundary"
	"github.com/continuity-dev/continuity/hostapi"
)

// decider runs managed-context boundary decisions off the read loop, in the
// order their boundaries arrived: the event that marks a boundary is
// observed synchronously, and the decision (which may read the session from
// the host) is queued to one goroutine that this type owns.
type decider struct {
	b   *boundary.Service
	log *zap.Logger

	mu     sync.Mutex
	queue  []decision
	wake   chan struct{}
	closed bool
	done   chan struct{}
}

type decision struct {
	sessionID string
	at        boundary.Trigger
}

func newDecider(b *boundary.Service, log *zap.Logger) *decider {
	d := &decider{b: b, log: log, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go d.run()
	return d
}

// observe feeds one event to the boundary service and queues a decision
// when the event is a boundary: turn end, compaction start, or context
// pressure reported by a usage event.
func (d *decider) observe(ev hostapi.SessionEvent) {
	d.b.Observe(ev.SessionID, ev.Event)
	switch ev.Event.Type {
	case "turn/end":
		d.enqueue(ev.SessionID, boundary.TurnEnd)
	case "compaction/start":
		d.enqueue(ev.SessionID, boundary.CompactionStart)
	case "usage":
		if d.b.UnderPressure(ev.SessionID) {
			d.enqueue(ev.SessionID, boundary.ContextPressure)
		}
	}
}

func (d *decider) enqueue(sessionID string, at boundary.Trigger) {
	d.mu.Lock()
	if !d.closed {
		d.queue = append(d.queue, decision{sessionID, at})
	}
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *decider) run() {
	defer close(d.done)
	for {
		d.mu.Lock()
		batch, closed := d.queue, d.closed
		d.queue = nil
		d.mu.Unlock()
		for _, x := range batch {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			dec, err := d.b.Decide(ctx, x.sessionID, x.at)
			cancel()
			if err != nil {
				d.log.Warn("boundary decision failed", zap.String("session", x.sessionID), zap.Error(err))
				continue
			}
			d.log.Info("boundary decision", zap.String("session", x.sessionID), zap.String("decision", string(dec.Decision)), zap.String("reason", string(dec.Reason)))
		}
		if closed {
			return
		}
		<-d.wake
	}
}

// close lets queued decisions finish (bounded) and stops the goroutine.
func (d *decider) close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
	select {
	case <-d.done:
	case <-time.After(time.Second):
	}
}

// observe forwards a session event to the features that read history.
func (svc *services) observe(ev hostapi.SessionEvent) { svc.decider.observe(ev) }

// dispose forgets a disposed agent everywhere.
func (svc *services) dispose(sessionID string) {
	svc.turns.Dispose(sessionID)
	svc.models.forget(sessionID)
	svc.consent.Revoke(sessionID)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.boundary.Dispose(ctx, sessionID)
	}()
}

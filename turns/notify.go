package turns

import (
	"context"
	"sync"
	"time"

	"github.com/continuity-dev/continuity/hostapi"
)

// notifier sends continuity.notice remote events in order on its own
// goroutine, so that notification handlers in the read loop never wait on
// the pipe to the host.
type notifier struct {
	emit hostapi.Emitter

	mu      sync.Mutex
	queue   []Notice
	wake    chan struct{}
	closed  bool
	stopped chan struct{}
}

func newNotifier(emit hostapi.Emitter) *notifier {
	n := &notifier{emit: emit, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	go n.run()
	return n
}

func (n *notifier) send(notice Notice) {
	if n.emit == nil {
		return
	}
	n.mu.Lock()
	if !n.closed {
		n.queue = append(n.queue, notice)
	}
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

func (n *notifier) run() {
	defer close(n.stopped)
	for {
		n.mu.Lock()
		batch := n.queue
		n.queue = nil
		closed := n.closed
		n.mu.Unlock()
		for _, notice := range batch {
			ctx, cancel := context.WithTimeout(context.Background(), hostapi.DefaultTimeout)
			_ = n.emit.Emit(ctx, "continuity.notice", notice)
			cancel()
		}
		if closed && len(batch) == 0 {
			return
		}
		<-n.wake
	}
}

// close flushes queued notices (bounded) and stops the goroutine.
func (n *notifier) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
	select {
	case <-n.stopped:
	case <-time.After(500 * time.Millisecond):
	}
}

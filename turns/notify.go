package turns

import (
	"context"
	"sync"
	"time"

	"github.com/continuity-dev/continuity/hostapi"
)

// maxQueuedNotices bounds the notices waiting to be sent; when the host
// stops reading, the oldest are dropped (clients re-read the live set with
// the notices Remote, so a lost event only delays them).
const maxQueuedNotices = 1024

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
		if len(n.queue) > maxQueuedNotices {
			n.queue = n.queue[len(n.queue)-maxQueuedNotices:]
		}
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
		if closed {
			// Drain what was queued before close, then stop; waiting for
			// a wake-up here would never end.
			if len(batch) == 0 {
				return
			}
			continue
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

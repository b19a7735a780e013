package turns

import (
	"context"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/internal/queue"
)

// maxQueuedNotices bounds the notices waiting to be sent; when the host
// stops reading, the oldest are dropped (clients re-read the live set with
// the notices Remote, so a lost event only delays them).
const maxQueuedNotices = 1024

// noticeEvent is the Remote event name notices go out under.
const noticeEvent = "continuity.notice"

// notifier sends continuity.notice remote events in order on the goroutine
// of its queue, so that notification handlers in the read loop never wait
// on the pipe to the host. A nil emitter sends nothing and starts nothing.
type notifier struct {
	q   *queue.Queue[Notice]
	log *zap.Logger
}

// newNotifier starts the queue under base: cancelling it (the connection
// ending) stops the send in progress. Sends that fail and notices dropped
// from a full queue are logged.
func newNotifier(base context.Context, emit hostapi.Emitter, log *zap.Logger) *notifier {
	if emit == nil {
		return &notifier{}
	}
	send := func(ctx context.Context, n Notice) {
		ctx, cancel := context.WithTimeout(ctx, hostapi.DefaultTimeout)
		defer cancel()
		if err := emit.Emit(ctx, noticeEvent, n); err != nil {
			log.Warn("notice not sent", zap.String("notice", n.ID), zap.Error(err))
		}
	}
	dropped := func(n Notice) {
		log.Warn("notice dropped: the host is not reading", zap.String("notice", n.ID))
	}
	return &notifier{q: queue.New(base, send, queue.Options[Notice]{Limit: maxQueuedNotices, Dropped: dropped}), log: log}
}

func (n *notifier) send(notice Notice) {
	if n.q != nil {
		n.q.Push(notice)
	}
}

// hold keeps the notices pushed from now on until release (queue.Hold).
func (n *notifier) hold() (release func()) {
	if n.q == nil {
		return func() {}
	}
	return n.q.Hold()
}

// close sends what is queued until ctx ends and returns once the queue's
// goroutine has; notices still queued at the deadline are logged by count.
func (n *notifier) close(ctx context.Context) {
	if n.q == nil {
		return
	}
	if unsent := n.q.Close(ctx); unsent > 0 {
		n.log.Warn("notices left unsent at exit", zap.Int("notices", unsent))
	}
}

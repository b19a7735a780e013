// Package queue runs work items in arrival order on one goroutine that the
// queue owns, off the caller's goroutine: the plugin's read loop hands
// work to a queue (a boundary decision, a notice to the host) and never
// waits on the store or the pipe itself.
//
// Ownership is explicit: New starts the goroutine, Close is the only way
// it ends, and Close returns only after it has returned, so whatever the
// work touches (a database, a connection) may be closed right after.
package queue

import (
	"context"
	"sync"
)

// Queue runs Work for each pushed item, one at a time, in push order.
type Queue[T any] struct {
	work  func(ctx context.Context, item T)
	limit int
	// dropped is told about an item pushed out of a full queue, so the
	// owner logs it: no item disappears without a line.
	dropped func(item T)

	ctx    context.Context // every item's context derives from it
	cancel context.CancelFunc

	mu      sync.Mutex
	items   []T
	closed  bool
	holds   int // items wait while positive (Hold)
	wake    chan struct{}
	stopped chan struct{}
}

// Options configure a queue.
type Options[T any] struct {
	// Limit bounds the items waiting (0: no bound). When a push finds the
	// queue full the oldest waiting item is dropped.
	Limit int
	// Dropped, when set, is called (on the pushing goroutine) for every
	// item dropped by Limit or pushed after Close.
	Dropped func(item T)
}

// New starts a queue whose items run under contexts derived from ctx:
// cancelling ctx cancels the running item and every later one.
func New[T any](ctx context.Context, work func(ctx context.Context, item T), o Options[T]) *Queue[T] {
	q := &Queue[T]{work: work, limit: o.Limit, dropped: o.Dropped,
		wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	q.ctx, q.cancel = context.WithCancel(ctx)
	go q.run()
	return q
}

// Push queues item behind every item pushed before it. After Close the
// item is dropped.
func (q *Queue[T]) Push(item T) {
	var drop []T
	q.mu.Lock()
	if q.closed {
		drop = append(drop, item)
	} else {
		q.items = append(q.items, item)
		if q.limit > 0 && len(q.items) > q.limit {
			over := len(q.items) - q.limit
			drop = append(drop, q.items[:over]...)
			q.items = append(q.items[:0:0], q.items[over:]...)
		}
	}
	held := q.holds > 0
	q.mu.Unlock()
	if q.dropped != nil {
		for _, d := range drop {
			q.dropped(d)
		}
	}
	if !held {
		q.signal()
	}
}

// Hold keeps pushed items waiting, in order, until every hold is
// released; an item already running goes on. A caller about to write to
// the same pipe as the queue's work uses it so that its own write goes
// first (the plugin answers a request before the notices it caused) and
// no goroutine wakes for a moment it would only wait. A hold must be
// short: nothing starts while one is taken. Once the queue is closed its
// items run whatever the holds, so an exit never waits on one.
func (q *Queue[T]) Hold() (release func()) {
	q.mu.Lock()
	q.holds++
	q.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			q.holds--
			resume := q.holds == 0 && len(q.items) > 0
			q.mu.Unlock()
			if resume {
				q.signal()
			}
		})
	}
}

// Len is the number of items waiting (not counting one that runs).
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

func (q *Queue[T]) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *Queue[T]) run() {
	defer close(q.stopped)
	for {
		item, ok, closed := q.next()
		switch {
		case ok:
			q.work(q.ctx, item)
		case closed:
			return
		default:
			select {
			case <-q.wake:
			case <-q.ctx.Done():
			}
		}
	}
}

// next pops the oldest item. It reports closed once the queue is closed
// and empty, or its context has ended (the items left are counted by
// Close).
func (q *Queue[T]) next() (item T, ok, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ctx.Err() != nil {
		return item, false, true
	}
	if len(q.items) == 0 {
		return item, false, q.closed
	}
	if q.holds > 0 && !q.closed {
		return item, false, false // the release signals
	}
	item = q.items[0]
	var zero T
	q.items[0] = zero // the queue keeps no reference to a taken item
	q.items = q.items[1:]
	return item, true, false
}

// Close stops accepting items, lets the waiting ones run until ctx ends,
// then cancels whatever still runs and waits for the goroutine to return.
// It returns how many queued items were left unrun because ctx ended.
// Work must honour its context for Close to return promptly.
func (q *Queue[T]) Close(ctx context.Context) (unrun int) {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
	select {
	case <-q.stopped:
	case <-ctx.Done():
	}
	q.cancel()
	<-q.stopped
	q.mu.Lock()
	unrun = len(q.items)
	q.items = nil
	q.mu.Unlock()
	return unrun
}

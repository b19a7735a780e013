package turns

import (
	"sync"
	"time"

	"github.com/continuity-dev/continuity/filter"
)

// retries remembers, per filtered request, which admission produced its
// final bytes, the bytes, what they omitted and whether the supplier
// answered 408, so that a retry (retryOf) returns exactly the same result
// while that turn is current.
//
// The records live exactly as long as their use: a retry is served only
// while its admission is current, so forget drops an ended admission's
// records and with them their bytes, and a record older than
// filter.RetainTTL is not served. (A store that held every filtered
// payload for the whole TTL kept up to 256 MiB of bytes that could never
// be served once their turn ended: at a 1 MiB payload per turn the heap
// grew by the budget, and every new copy landed on memory the process had
// never touched.)
type retries struct {
	mu    sync.Mutex
	byID  map[string]*retryEntry
	bytes int // the sizes of the distinct kept outputs of byID
	// aging is every record made, oldest first, so that the next retain
	// drops those past filter.RetainTTL: a record that old is never
	// served again (retry checks its age, and time.Now's monotonic
	// reading does not go back), yet within one long turn — 400 steps of
	// 0.7 MB outputs — it held its bytes, and its share of the budget,
	// until the turn ended. An entry whose record is gone or replaced is
	// skipped when it comes up.
	aging []agingEntry
}

// agingEntry is one record as made, under its request id.
type agingEntry struct {
	id string
	e  *retryEntry
}

type retryEntry struct {
	a        *admission
	out      *keptOutput // shared by a request and its retries
	omitted  filter.Omitted
	timedOut bool // the supplier answered 408
}

// keptOutput is the final bytes of one filtered request. Until detach
// they are borrowed: slices of the payload's frame, which the request's
// wire.Params still own; detach (before the frame is released) or a
// retry that comes first copies them into a buffer of the record's own,
// which goes back to outputBuffers once nothing refers to it any more.
type keptOutput struct {
	sum     [32]byte
	size    int
	expires time.Time
	// records counts the records sharing the output (its bytes count
	// toward the budget while any is left) and readers the retry results
	// still being written from it; when both are zero the buffer is
	// recycled. Both are guarded by retries.mu.
	records, readers int

	mu       sync.Mutex
	own      []byte   // the record's own copy, once taken
	borrowed [][]byte // the frame's slices until then
	dropped  bool     // nothing refers to it: detach need not copy
}

// outputBuffers recycles the buffers of kept outputs. Every filtered
// payload's bytes are copied once, after its reply, in case the supplier
// answers 408; without reuse that copy was a fresh 1 MiB allocation per
// 1 MiB payload, half of what the plugin allocated on the payload path
// and the main reason the collector ran. Pooled buffers live in a
// sync.Pool, so the collector still frees them when payloads stop.
var outputBuffers sync.Pool // of *[]byte

// ownCopy joins pieces into a recycled buffer when one is large enough.
func ownCopy(pieces [][]byte, size int) []byte {
	var b []byte
	if p, _ := outputBuffers.Get().(*[]byte); p != nil && cap(*p) >= size {
		b = (*p)[:0]
	} else {
		// An eighth more, so a slightly larger next payload still fits.
		b = make([]byte, 0, size+size/8)
	}
	for _, p := range pieces {
		b = append(b, p...)
	}
	return b
}

// recycle gives b back; the caller holds no other reference to it. In
// the race build it is poisoned first, so that a slice kept past its
// release reads garbage at once (as wire does with frame buffers).
func recycle(b []byte) {
	if poisonRecycled != nil {
		poisonRecycled(b[:cap(b)])
	}
	b = b[:0]
	outputBuffers.Put(&b)
}

// poisonRecycled is set in the race build (poison_race.go).
var poisonRecycled func([]byte)

// bytesOf returns the output, copying it out of the borrowed slices the
// first time. The caller holds a record or a reader, so it is not dropped
// meanwhile.
func (k *keptOutput) bytesOf() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.borrowed != nil {
		k.own, k.borrowed = ownCopy(k.borrowed, k.size), nil
	}
	return k.own
}

// detach ends the borrow: the frame is about to be released. A record
// already dropped (its turn ended before the reply was written) is not
// copied at all.
func (k *keptOutput) detach() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.borrowed != nil && !k.dropped {
		k.own = ownCopy(k.borrowed, k.size)
	}
	k.borrowed = nil
}

// drop lets go of the bytes once nothing refers to them.
func (k *keptOutput) drop() {
	k.mu.Lock()
	own := k.own
	k.dropped, k.own, k.borrowed = true, nil, nil
	k.mu.Unlock()
	if own != nil {
		recycle(own)
	}
}

// retain records a filtered request's final bytes for an exact retry. The
// record borrows them from the payload until the returned detach. Bytes
// beyond the budget (filter.DefaultRetainBytes over every session's
// current turns) are not kept: a retry of that request then misses and
// is filtered anew, never guessed.
func (m *Manager) retain(requestID string, a *admission, out PayloadResult) (detach func()) {
	size := 0
	for _, p := range out.Output {
		size += len(p)
	}
	now := m.opt.Now()
	k := &keptOutput{sum: out.SHA256, size: size, expires: now.Add(filter.RetainTTL), borrowed: out.Output, records: 1}
	r := &m.retry408
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removeLocked(requestID)
	r.expireLocked(now)
	if r.bytes+size > filter.DefaultRetainBytes {
		return func() {}
	}
	r.bytes += size
	e := &retryEntry{a: a, out: k, omitted: out.Omitted}
	r.byID[requestID] = e
	r.aging = append(r.aging, agingEntry{id: requestID, e: e})
	return k.detach
}

// expireLocked drops the records that are past their retention at now,
// oldest first, and stops at the first live one that is not. The records
// after it are nearly all younger; one a retry made has its original's
// age and may be older, and then goes a little later than it could. r.mu
// is held.
func (r *retries) expireLocked(now time.Time) {
	n := 0
	for _, old := range r.aging {
		if r.byID[old.id] == old.e && now.Before(old.e.out.expires) {
			break
		}
		if r.byID[old.id] == old.e {
			r.removeLocked(old.id)
		}
		n++
	}
	if n > 0 {
		r.aging = append(r.aging[:0], r.aging[n:]...)
	}
}

// timedOut records a 408 for requestID (from llm/response).
func (m *Manager) timedOut(requestID string) {
	m.retry408.mu.Lock()
	if e := m.retry408.byID[requestID]; e != nil {
		e.timedOut = true
	}
	m.retry408.mu.Unlock()
}

// retry returns the recorded result of request of, when the supplier
// answered it with 408, its admission a is still current and the record is
// younger than filter.RetainTTL. The retry itself (requestID) is recorded
// too, so a retry of the retry gets the same bytes after another 408. The
// result borrows the record's buffer until its Detach.
func (m *Manager) retry(of, requestID string, a *admission) (PayloadResult, bool) {
	if a.revokedErr() != nil {
		return PayloadResult{}, false
	}
	r := &m.retry408
	r.mu.Lock()
	e := r.byID[of]
	if e == nil || e.a != a || !e.timedOut || !m.opt.Now().Before(e.out.expires) {
		r.mu.Unlock()
		return PayloadResult{}, false
	}
	entry := *e
	entry.out.readers++ // the result's, until its Detach
	if requestID != of {
		r.removeLocked(requestID)
		entry.out.records++
		again := &retryEntry{a: a, out: entry.out, omitted: entry.omitted}
		r.byID[requestID] = again
		r.aging = append(r.aging, agingEntry{id: requestID, e: again})
	}
	r.mu.Unlock()
	release := func() {
		r.mu.Lock()
		entry.out.readers--
		r.dropIfUnusedLocked(entry.out)
		r.mu.Unlock()
	}
	out := entry.out.bytesOf()
	if out == nil {
		release()
		return PayloadResult{}, false
	}
	return PayloadResult{Outcome: OutcomeFiltered, Output: [][]byte{out}, Omitted: entry.omitted, SHA256: entry.out.sum,
		detach: sync.OnceFunc(release)}, true
}

// forget drops the retry records of an ended admission, and their bytes.
func (r *retries) forget(a *admission) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, e := range r.byID {
		if e.a == a {
			r.removeLocked(id)
		}
	}
}

// removeLocked deletes the record of id; the bytes go when nothing
// refers to them any more. r.mu is held.
func (r *retries) removeLocked(id string) {
	e := r.byID[id]
	if e == nil {
		return
	}
	delete(r.byID, id)
	if e.out.records--; e.out.records == 0 {
		r.bytes -= e.out.size
	}
	r.dropIfUnusedLocked(e.out)
}

// dropIfUnusedLocked recycles k's buffer once no record and no retry
// result refers to it. r.mu is held.
func (r *retries) dropIfUnusedLocked(k *keptOutput) {
	if k.records == 0 && k.readers == 0 {
		k.drop()
	}
}

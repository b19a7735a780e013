package filter

import (
	"bytes"
	"sync"
	"time"
)

// RetainTTL is how long the final bytes of a filtered request stay
// available for an exact retry (docs/design.md §2.3).
const RetainTTL = 60 * time.Second

// DefaultRetainBytes bounds the bytes a Retained holds when the caller does
// not choose: four 64 MiB payloads.
const DefaultRetainBytes = 256 << 20

// MaxRetainedEntries bounds the number of records a Retained holds, so
// that many small payloads cannot grow it without limit either.
const MaxRetainedEntries = 4096

// Retained keeps the final bytes of recent filtered requests so that a
// retry of a request (after a 408) sends exactly what was sent before. It
// holds each entry for RetainTTL and never more than its byte budget,
// evicting the oldest entries first. It is safe for concurrent use.
type Retained struct {
	mu       sync.Mutex
	now      func() time.Time
	maxBytes int
	bytes    int
	byID     map[string]*retainedEntry
	order    []*retainedEntry // insertion order, oldest first
}

type retainedEntry struct {
	id      string
	size    int
	sum     [32]byte
	expires time.Time
	gone    bool // replaced or evicted; still in order until swept

	mu sync.Mutex // guards out and borrowed; never held with Retained.mu
	// out is the bytes once they are the store's own; until then borrowed
	// holds them as slices of memory the caller owns (see PutBorrowed).
	out      []byte
	borrowed [][]byte
}

// NewRetained returns an empty store. now is the clock (nil means
// time.Now); maxBytes ≤ 0 means DefaultRetainBytes.
func NewRetained(now func() time.Time, maxBytes int) *Retained {
	if now == nil {
		now = time.Now
	}
	if maxBytes <= 0 {
		maxBytes = DefaultRetainBytes
	}
	return &Retained{now: now, maxBytes: maxBytes, byID: map[string]*retainedEntry{}}
}

// Put records the final bytes and their SHA-256 (the final sum) of request requestID, replacing an
// earlier record of it. out is kept without copying, so the caller must not
// modify it afterwards. Bytes larger than the whole budget are not kept
// (a later Get misses and the caller must not guess them).
func (r *Retained) Put(requestID string, out []byte, sum [32]byte) {
	r.put(&retainedEntry{id: requestID, size: len(out), sum: sum, out: out})
}

// PutBorrowed records final bytes that are still slices of memory the
// caller will reuse (a frame buffer): nothing is copied now, so recording
// costs nothing on the way to the reply. The caller must call the returned
// detach before it reuses that memory; detach copies the bytes into the
// store's own (unless the record is already gone). A Get before then copies
// them itself.
func (r *Retained) PutBorrowed(requestID string, pieces [][]byte, sum [32]byte) (detach func()) {
	size := 0
	for _, p := range pieces {
		size += len(p)
	}
	e := &retainedEntry{id: requestID, size: size, sum: sum, borrowed: pieces}
	r.put(e)
	return func() {
		r.mu.Lock()
		gone := e.gone
		r.mu.Unlock()
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.borrowed != nil && !gone {
			e.out = bytes.Join(e.borrowed, nil)
		}
		e.borrowed = nil
	}
}

func (r *Retained) put(e *retainedEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.sweep(now)
	if old := r.byID[e.id]; old != nil {
		r.drop(old)
	}
	if e.size > r.maxBytes {
		e.gone = true // never held: detach must not copy it
		return
	}
	for len(r.order) > 0 && (r.bytes+e.size > r.maxBytes || len(r.byID) >= MaxRetainedEntries) {
		r.drop(r.order[0])
		r.order[0] = nil
		r.order = r.order[1:]
	}
	e.expires = now.Add(RetainTTL)
	r.byID[e.id] = e
	r.order = append(r.order, e)
	r.bytes += e.size
}

// Get returns the bytes and SHA-256 recorded for requestID if they are
// younger than RetainTTL.
func (r *Retained) Get(requestID string) ([]byte, [32]byte, bool) {
	r.mu.Lock()
	now := r.now()
	r.sweep(now)
	e := r.byID[requestID]
	if e == nil || !now.Before(e.expires) {
		r.mu.Unlock()
		return nil, [32]byte{}, false
	}
	r.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.borrowed != nil {
		// Not detached yet: the caller's memory is still valid (detach
		// waits for this lock), so take the store's copy now.
		e.out, e.borrowed = bytes.Join(e.borrowed, nil), nil
	}
	if e.out == nil {
		// Dropped (replaced or evicted) after the lookup and detached
		// without a copy: final bytes are never empty, so this is a miss.
		return nil, [32]byte{}, false
	}
	return e.out, e.sum, true
}

// Len reports how many records are held.
func (r *Retained) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sweep(r.now())
	return len(r.byID)
}

// sweep drops expired and already-dropped entries from the front. Entries
// are appended in clock order, so the first live unexpired one ends it.
func (r *Retained) sweep(now time.Time) {
	for len(r.order) > 0 {
		e := r.order[0]
		if !e.gone && now.Before(e.expires) {
			return
		}
		r.drop(e)
		r.order[0] = nil
		r.order = r.order[1:]
	}
}

// drop forgets e (idempotently); sweep or eviction removes it from order.
func (r *Retained) drop(e *retainedEntry) {
	if e.gone {
		return
	}
	e.gone = true
	r.bytes -= e.size
	if r.byID[e.id] == e {
		delete(r.byID, e.id)
	}
}

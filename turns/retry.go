package turns

import (
	"sync"

	"github.com/continuity-dev/continuity/filter"
)

// retries remembers, per filtered request, which admission produced its
// final bytes, what they omitted and whether the supplier answered 408, so
// that a retry (retryOf) returns exactly the same result while that turn is
// current. The bytes themselves live in the filter's Retained store for
// 60 s, under the id of the request that first produced them.
type retries struct {
	mu   sync.Mutex
	byID map[string]*retryEntry
}

type retryEntry struct {
	a        *admission
	key      string // the Retained id holding the bytes
	omitted  filter.Omitted
	timedOut bool // the supplier answered 408
}

// retain records a filtered request's final bytes for an exact retry. The
// record borrows them from the payload until the returned detach.
func (m *Manager) retain(requestID string, a *admission, out PayloadResult) (detach func()) {
	detach = m.retained.PutBorrowed(requestID, out.Output, out.SHA256)
	m.retry408.mu.Lock()
	m.retry408.byID[requestID] = &retryEntry{a: a, key: requestID, omitted: out.Omitted}
	m.retry408.mu.Unlock()
	return detach
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
// answered it with 408 and its admission a is still current. The retry
// itself (requestID) is recorded too, so a retry of the retry gets the same
// bytes after another 408.
func (m *Manager) retry(of, requestID string, a *admission) (PayloadResult, bool) {
	m.retry408.mu.Lock()
	e := m.retry408.byID[of]
	ok := e != nil && e.a == a && e.timedOut
	var entry retryEntry
	if ok {
		entry = *e
	}
	m.retry408.mu.Unlock()
	if !ok || a.revokedErr() != nil {
		return PayloadResult{}, false
	}
	out, sum, ok := m.retained.Get(entry.key)
	if !ok {
		return PayloadResult{}, false
	}
	m.retry408.mu.Lock()
	if requestID != of {
		m.retry408.byID[requestID] = &retryEntry{a: a, key: entry.key, omitted: entry.omitted}
	}
	m.retry408.mu.Unlock()
	return PayloadResult{Outcome: OutcomeFiltered, Output: [][]byte{out}, Omitted: entry.omitted, SHA256: sum}, true
}

// forget drops the retry records of an ended admission.
func (r *retries) forget(a *admission) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, e := range r.byID {
		if e.a == a {
			delete(r.byID, id)
		}
	}
}

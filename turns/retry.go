package turns

import (
	"sync"
	"unsafe"
)

// retries remembers, per filtered request, which admission produced its
// final bytes and whether the supplier answered 408, so that a retry
// (retryOf) returns exactly those bytes while that turn is current. The
// bytes themselves live in the filter's Retained store for 60 s.
type retries struct {
	mu       sync.Mutex
	scope    map[string]*admission // requestId → admission
	timedOut map[string]bool       // requestIds answered 408
}

func (m *Manager) retain(requestID string, a *admission, out []byte, sum [32]byte) {
	m.retained.Put(requestID, out, sum)
	m.retry408.mu.Lock()
	m.retry408.scope[requestID] = a
	m.retry408.mu.Unlock()
}

// timedOut records a 408 for requestID (from llm/response).
func (m *Manager) timedOut(requestID string) {
	m.retry408.mu.Lock()
	if _, ok := m.retry408.scope[requestID]; ok {
		m.retry408.timedOut[requestID] = true
	}
	m.retry408.mu.Unlock()
}

// retry returns the recorded bytes of an earlier request of the same,
// still current admission that the supplier answered with 408.
func (m *Manager) retry(of string, a *admission) ([]byte, [32]byte, bool) {
	m.retry408.mu.Lock()
	ok := m.retry408.scope[of] == a && m.retry408.timedOut[of]
	m.retry408.mu.Unlock()
	if !ok || a.revokedErr() != nil {
		return nil, [32]byte{}, false
	}
	return m.retained.Get(of)
}

// forget drops retry scope of an ended admission.
func (r *retries) forget(a *admission) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, b := range r.scope {
		if b == a {
			delete(r.scope, id)
			delete(r.timedOut, id)
		}
	}
}

// unsafeString views b as a string without copying; b must not change.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

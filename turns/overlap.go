package turns

import "github.com/continuity-dev/continuity/diag"

// overlap is the part of an admission that keeps its chat payloads apart
// (issue 18 #5). The filter's own guard only sees calls that meet inside
// it; a payload that arrives while another of the turn is still on its way
// there, or just after it, would otherwise be decided against a baseline
// that is missing or that another request's step 1 set. Its fields are
// guarded by the admission's mu.
type overlap struct {
	// filtering is set while a payload of the turn is being decided.
	filtering bool
	// firstPending holds the step-1 requests bound by agent/request whose
	// payload has not been answered yet: a later step that comes before
	// them overlaps them, it does not lack a boundary.
	firstPending map[string]struct{}
	// firstLost holds the step-1 requests of firstPending that were still
	// waiting when a frame was lost on the wire (a host that died
	// mid-write; answered -32700 with a null id): their payload may never
	// come, so a later step does not wait on them — it has no boundary.
	firstLost map[string]struct{}
	// firstBy is the request whose payload set the turn's baseline. Another
	// request's step-1 payload cannot be decided against it: at step 1 all
	// reasoning is history, and the baseline would pass it as current.
	firstBy string
}

// expectFirst records a step-1 request bound to the admission.
func (a *admission) expectFirst(requestID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.overlap.firstPending == nil {
		a.overlap.firstPending = map[string]struct{}{}
	}
	a.overlap.firstPending[requestID] = struct{}{}
}

// startPayload lets one chat payload of the turn be decided, or fails with
// PROCESSING_OVERLAP when it would overlap another. finish must be called
// once the payload is decided, with whether it succeeded.
func (a *admission) startPayload(req PayloadRequest) (finish func(ok bool), err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	o := &a.overlap
	hadBaseline := a.filter.HasBaseline()
	switch {
	case o.filtering:
		err = diag.New(diag.ProcessingOverlap, "another payload of this turn is being filtered")
	case req.Step == 1 && o.firstBy != "" && o.firstBy != req.RequestID && req.RetryOf != o.firstBy:
		err = diag.New(diag.ProcessingOverlap, "step 1 of this turn was already filtered for another request")
	case req.Step > 1 && !hadBaseline && len(o.firstPending) > len(o.firstLost):
		err = diag.New(diag.ProcessingOverlap, "the first step of this turn has not been filtered yet")
	}
	if err != nil {
		o.forget(req.RequestID)
		return nil, err
	}
	o.filtering = true
	return func(ok bool) {
		a.mu.Lock()
		defer a.mu.Unlock()
		o.filtering = false
		o.forget(req.RequestID)
		if ok && !hadBaseline && a.filter.HasBaseline() {
			o.firstBy = req.RequestID
		}
	}, nil
}

// forget drops a request from the pending step-1 requests.
func (o *overlap) forget(requestID string) {
	delete(o.firstPending, requestID)
	delete(o.firstLost, requestID)
}

// frameLost marks every step-1 request still pending as possibly lost.
func (a *admission) frameLost() {
	a.mu.Lock()
	defer a.mu.Unlock()
	o := &a.overlap
	for id := range o.firstPending {
		if o.firstLost == nil {
			o.firstLost = map[string]struct{}{}
		}
		o.firstLost[id] = struct{}{}
	}
}

// FrameLost records that a frame could not be read (it was answered with a
// null id, so nobody knows whose it was). A step-1 payload still pending
// may have been that frame: the turn's later steps then fail with
// TURN_BOUNDARY_UNAVAILABLE, as a cold mid-turn step does, instead of
// PROCESSING_OVERLAP for a payload that is not being processed; a retry of
// step 1 still sets the baseline. It runs on the read loop and only
// touches memory.
func (m *Manager) FrameLost() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.sessions {
		if a := s.current; a != nil {
			a.frameLost()
		}
	}
}

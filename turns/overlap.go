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
	case req.Step > 1 && !hadBaseline && len(o.firstPending) > 0:
		err = diag.New(diag.ProcessingOverlap, "the first step of this turn has not been filtered yet")
	}
	if err != nil {
		delete(o.firstPending, req.RequestID)
		return nil, err
	}
	o.filtering = true
	return func(ok bool) {
		a.mu.Lock()
		defer a.mu.Unlock()
		o.filtering = false
		delete(o.firstPending, req.RequestID)
		if ok && !hadBaseline && a.filter.HasBaseline() {
			o.firstBy = req.RequestID
		}
	}, nil
}

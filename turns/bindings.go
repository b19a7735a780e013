package turns

// maxEndedBindings bounds how many request ids of ended admissions are
// remembered. They exist so that a late payload or llm/response of a turn
// that ended (or of a disposed agent) finds its admission — and gets
// REVOKED — instead of looking unbound and going out native.
const maxEndedBindings = 4096

// bindings maps request ids to the admission they were bound to by
// agent/request. live holds the ids of each session's current admission;
// ended holds, oldest first and bounded, ids of admissions that were
// replaced or disposed. All methods run with Manager.mu held.
type bindings struct {
	live  map[string]*admission
	ended map[string]*admission
	order []string // ended ids, oldest first
}

func newBindings() bindings {
	return bindings{live: map[string]*admission{}, ended: map[string]*admission{}}
}

// bind binds requestID to a (rebinding an id that was retired).
func (b *bindings) bind(requestID string, a *admission) {
	delete(b.ended, requestID)
	b.live[requestID] = a
}

// get returns the admission requestID is bound to, live or ended.
func (b *bindings) get(requestID string) *admission {
	if a := b.live[requestID]; a != nil {
		return a
	}
	return b.ended[requestID]
}

// retire moves every live id bound to a into the ended set.
func (b *bindings) retire(a *admission) {
	for id, x := range b.live {
		if x == a {
			b.retireID(id, x)
		}
	}
}

// retireSession moves every live id of a session into the ended set.
func (b *bindings) retireSession(sessionID string) {
	for id, x := range b.live {
		if x.sessionID == sessionID {
			b.retireID(id, x)
		}
	}
}

func (b *bindings) retireID(id string, a *admission) {
	delete(b.live, id)
	if _, ok := b.ended[id]; !ok {
		b.order = append(b.order, id)
	}
	b.ended[id] = a
	for len(b.order) > maxEndedBindings {
		delete(b.ended, b.order[0])
		b.order[0] = ""
		b.order = b.order[1:]
	}
}

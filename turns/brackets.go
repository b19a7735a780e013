package turns

// Compaction bracket states. "unknown" is reported for a bracket this
// process did not see open (after a restart): never guessed.
const (
	StateRunning   = "running"
	StateCompleted = "completed"
	StateFailed    = "failed"
	StateCancelled = "cancelled"
	StateBlocked   = "blocked"
	StateUnknown   = "unknown"
)

// Bracket limits (docs/design.md §2.4).
const (
	maxOpenBrackets = 64
	maxStatuses     = 128
)

// bracket is one compaction, from compaction/start to compaction/end. All
// fields are guarded by Manager.mu.
type bracket struct {
	id         string
	sessionID  string
	turn       *int64 // nil for an idle manual compaction
	state      string
	model      string // pinned by the first summary payload
	policy     *bool  // captured persistent policy; nil until known
	checkpoint bool   // the compact-checkpoint user/message arrived
	counts     counts
	revoked    string
}

// brackets holds a session's open brackets and its last settled statuses.
type brackets struct {
	open     map[string]*bracket
	settled  []*bracket // oldest first, at most maxStatuses
	refused  []string   // ids refused because too many were open
	latestID string
}

func newBrackets() *brackets { return &brackets{open: map[string]*bracket{}} }

// find returns an open or retained bracket by id.
func (b *brackets) find(id string) *bracket {
	if br := b.open[id]; br != nil {
		return br
	}
	for i := len(b.settled) - 1; i >= 0; i-- {
		if b.settled[i].id == id {
			return b.settled[i]
		}
	}
	return nil
}

// wasRefused reports whether id was turned away by the open limit.
func (b *brackets) wasRefused(id string) bool {
	for _, r := range b.refused {
		if r == id {
			return true
		}
	}
	return false
}

// refuse remembers an id turned away by the open limit (bounded).
func (b *brackets) refuse(id string) {
	b.refused = append(b.refused, id)
	if len(b.refused) > maxStatuses {
		b.refused = b.refused[1:]
	}
}

// unrefuse forgets a refused id once its bracket ended.
func (b *brackets) unrefuse(id string) {
	for i, r := range b.refused {
		if r == id {
			b.refused = append(b.refused[:i], b.refused[i+1:]...)
			return
		}
	}
}

// status returns a bracket's state, or unknown for one not seen.
func (b *brackets) status(id string) string {
	if br := b.find(id); br != nil {
		return br.state
	}
	return StateUnknown
}

func (b *brackets) latest() (id, state string, ok bool) {
	if b.latestID == "" {
		return "", "", false
	}
	return b.latestID, b.status(b.latestID), true
}

// settle ends a bracket with state and keeps its status (bounded).
func (b *brackets) settle(br *bracket, state string) {
	br.state = state
	delete(b.open, br.id)
	b.settled = append(b.settled, br)
	if len(b.settled) > maxStatuses {
		b.settled[0] = nil
		b.settled = b.settled[1:]
	}
}

func (b *brackets) revokeAll(why string) {
	for _, br := range b.open {
		br.revoked = why
	}
}

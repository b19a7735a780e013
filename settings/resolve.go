package settings

import (
	"context"
	"sort"

	"github.com/continuity-dev/continuity/hostapi"
)

// Where a resolved policy came from.
const (
	SourceSession = "session" // the session's own sessionContinuation row
	SourceDefault = "default" // the creation-time default (or off without one)
)

// Resolution is a session's effective policy at one namespace revision.
type Resolution struct {
	Enabled  bool
	Source   string
	Revision int64
}

// Resolve returns sessionID's policy: its own row wins (a legacy row without
// enabled is on); otherwise the creation-time default that header's birth
// evidence selects (see BirthDefault). Header may be nil.
func (p *Policy) Resolve(ctx context.Context, sessionID string, header *hostapi.SessionHeader) (Resolution, error) {
	st, err := p.read(ctx)
	if err != nil {
		return Resolution{}, err
	}
	return st.resolve(sessionID, header), nil
}

func (s state) resolve(sessionID string, header *hostapi.SessionHeader) Resolution {
	if i := rowIndex(s.rows, sessionID); i >= 0 {
		return Resolution{Enabled: s.rows[i].On(), Source: SourceSession, Revision: s.revision}
	}
	return Resolution{Enabled: BirthDefault(s.history, header), Source: SourceDefault, Revision: s.revision}
}

// BirthDefault is the creation-time default for a session: only a session
// whose header says isSeeded false, carries an integer createdAt and has no
// parent gets one, and it is the last history row changed strictly before
// createdAt. Forks, seeded histories, sessions born before the activation
// epoch and sessions without birth evidence are off, because nothing shows
// that their user was offered the default.
func BirthDefault(history []DefaultRow, header *hostapi.SessionHeader) bool {
	if header == nil || header.IsSeeded || header.ParentSession != "" || header.CreatedAt == nil {
		return false
	}
	born := *header.CreatedAt
	i := sort.Search(len(history), func(i int) bool { return history[i].ChangedAt >= born })
	return i > 0 && history[i-1].Enabled
}

package proxy

import (
	"slices"
	"sync"
	"time"

	"github.com/continuity-dev/continuity/filter"
)

// Bounds of what the proxy remembers per run.
const (
	maxSessions   = 1024 // the least recently seen session goes first
	maxRecent     = 8    // turns per session shown on the page
	maxRejections = 8    // rejections per session shown on the page
	// ledgerSeenEvery is how often a busy session's last-seen time is
	// written to the ledger: a restart lists it that much out of date at
	// most, and a burst of tool steps costs one write.
	ledgerSeenEvery = time.Minute
)

// session is what the proxy knows of one session key. Its fields are
// guarded by the registry's mutex.
type session struct {
	id        string
	client    string
	firstSeen time.Time
	lastSeen  time.Time
	accounts  []Account // distinct, in order of first use
	last      Account
	// synced: the ledger's account set for the session was read in this
	// run and holds accounts; only a new account needs asking again.
	synced bool
	// ledgerAt is when the session's last-seen time and client were last
	// written to the ledger (see ledgerSeenEvery).
	ledgerAt time.Time

	// The current turn, as the turn rule and the page count it.
	turnID string
	users  int
	turn   *filter.Turn // the plugin's turn filter (RuleTurn only)
	seq    int          // turns seen
	// The policy pinned for turn pinnedSeq (RuleTurn only).
	pinnedSeq int
	pinnedOn  bool

	recent     []TurnView
	rejections []RejectionView
}

// registry holds the sessions of this run.
type registry struct {
	mu       sync.Mutex
	sessions map[string]*session
}

func newRegistry() *registry { return &registry{sessions: map[string]*session{}} }

// placed is a request's place in its session, computed under the lock.
type placed struct {
	firstSeen  time.Time
	newAccount bool // this request's account is new to the session in this run
	synced     bool // the ledger's accounts for the session are in memory
	client     string
	stale      bool // the ledger's last-seen time for the session is to be written
	turn       *filter.Turn
	seq        int
}

// place records a request of session k with account a and returns what the
// rules need. The turn filter is created for a new turn when withTurn.
func (r *registry) place(k requestKeys, a Account, now time.Time, withTurn bool) placed {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, added := r.touchLocked(k, a, now)
	if k.newTurn(s.turnID, s.users, s.seq == 0) {
		s.seq++
		s.turn = nil
		if withTurn {
			s.turn = filter.NewTurn(filter.Options{StripPairedIDs: true, Prevalidated: true, NoCopy: true})
		}
		s.recent = append(s.recent, TurnView{Seq: s.seq})
		if len(s.recent) > maxRecent {
			s.recent = s.recent[1:]
		}
	}
	s.turnID, s.users = k.turnID, k.users
	return placed{firstSeen: s.firstSeen, newAccount: added, synced: s.synced, client: s.client, stale: s.staleLocked(now), turn: s.turn, seq: s.seq}
}

// bornAt sets when session id was first seen, as the ledger has it.
func (r *registry) bornAt(id string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.sessions[id]; ok {
		s.firstSeen = at
	}
}

// addAccounts adds to session id the accounts the ledger knows it used,
// and notes the session synced with the ledger.
func (r *registry) addAccounts(id string, seen []Account) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sessions[id]
	if !ok {
		return
	}
	s.synced = true
	for _, a := range seen {
		if !slices.Contains(s.accounts, a) {
			s.accounts = append(s.accounts, a)
		}
	}
}

// note records a side request of session k with account a: the session
// and its accounts, no turn.
func (r *registry) note(k requestKeys, a Account, now time.Time) placed {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, added := r.touchLocked(k, a, now)
	return placed{firstSeen: s.firstSeen, newAccount: added, synced: s.synced, client: s.client, stale: s.staleLocked(now), seq: s.seq}
}

// touchLocked finds or makes session k and records a request of account a
// at now; added is true when a is new to it.
func (r *registry) touchLocked(k requestKeys, a Account, now time.Time) (s *session, added bool) {
	s, existed := r.sessions[k.session]
	if !existed {
		r.evictLocked()
		s = &session{id: k.session, firstSeen: now}
		r.sessions[k.session] = s
	}
	if k.client != "" {
		s.client = k.client
	}
	s.lastSeen, s.last = now, a
	added = !slices.Contains(s.accounts, a)
	if added {
		s.accounts = append(s.accounts, a)
	}
	return s, added
}

// staleLocked reports whether the session's last-seen time is due to be
// written to the ledger at now, and notes it written.
func (s *session) staleLocked(now time.Time) bool {
	if now.Sub(s.ledgerAt) < ledgerSeenEvery {
		return false
	}
	s.ledgerAt = now
	return true
}

// evictLocked makes room for one more session.
func (r *registry) evictLocked() {
	if len(r.sessions) < maxSessions {
		return
	}
	var oldest *session
	for _, s := range r.sessions {
		if oldest == nil || s.lastSeen.Before(oldest.lastSeen) {
			oldest = s
		}
	}
	delete(r.sessions, oldest.id)
}

// sent adds one forwarded request's outcome to turn seq of session id, at
// now: om, of which unknown were omitted for want of a known issuer.
func (r *registry) sent(id string, seq int, a Account, on bool, om filter.Omitted, unknown int, now int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sessions[id]
	if !ok {
		return
	}
	for i := range s.recent {
		if t := &s.recent[i]; t.Seq == seq {
			t.Requests++
			t.At = now
			t.Account, t.Policy = a.Short(), onOff(on)
			t.OmittedReasoning += om.Items
			t.OmittedCompaction += om.Compactions
			t.OmittedUnknown += unknown
			t.OmittedForeign += om.Items + om.Compactions - unknown
			t.StrippedIDs += om.StrippedIDs
		}
	}
}

// rejected records a replay rejection of session id.
func (r *registry) rejected(id string, v RejectionView) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.sessions[id]; ok {
		s.rejections = append(s.rejections, v)
		if len(s.rejections) > maxRejections {
			s.rejections = s.rejections[1:]
		}
	}
}

// firstSeen reports when session id was first seen, ok false when unknown.
func (r *registry) firstSeen(id string) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sessions[id]
	if !ok {
		return time.Time{}, false
	}
	return s.firstSeen, true
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

package boundary

import (
	"strings"
	"sync"

	"github.com/continuity-dev/continuity/hostapi"
)

// sessionState is the in-memory view of one session built by Observe. It is
// guarded by Service.mu except decideMu, which serializes the boundaries of
// one session (Decide, PinTask) without blocking Observe.
type sessionState struct {
	decideMu sync.Mutex

	seen           bool
	firstSeq       int64
	lastSeq        int64
	fromStart      bool   // the view starts at the session's first event
	view           []Item // model-visible items since the last checkpoint
	pending        []Item // durable items not yet in the witness store
	firstUser      *Item  // the first non-blank, non-checkpoint user message
	lastUserSeq    int64
	usage          *Usage
	unreadable     int
	sawCheckpoint  bool
	lastDecided    int64  // the last event seq a decision saw
	lastCheckpoint int64  // seq of the latest compaction checkpoint
	marks          []mark // boundary events after lastDecided, in order
}

// apply folds one event into the state. Events at or before the last seen
// seq are replays and change nothing.
func (st *sessionState) apply(ev hostapi.Event) {
	if ev.Seq <= 0 || st.seen && ev.Seq <= st.lastSeq {
		if ev.Seq <= 0 {
			st.unreadable++
		}
		return
	}
	if !st.seen {
		st.seen, st.firstSeq = true, ev.Seq
		st.fromStart = ev.Seq == 1 || ev.Type == EventSessionCreated
	}
	st.lastSeq = ev.Seq
	p := parseEvent(ev)
	if p.unreadable {
		st.unreadable++
	}
	if p.usage != nil {
		st.usage = p.usage
	}
	if p.checkpoint {
		st.view, st.sawCheckpoint, st.lastCheckpoint = nil, true, ev.Seq
	}
	if m, ok := markFor(ev.Type, ev.Seq, p.usage); ok {
		st.marks = append(st.marks, m)
	}
	if p.userText != nil {
		st.lastUserSeq = ev.Seq
		if st.firstUser == nil && strings.TrimSpace(*p.userText) != "" {
			st.firstUser = &Item{Seq: ev.Seq, Kind: KindRequest, Text: *p.userText}
		}
	}
	for _, it := range p.items {
		st.view = append(st.view, it)
		if it.durable() {
			st.pending = append(st.pending, it)
		}
	}
}

// snapshot is a copy of what one decision reads, taken under Service.mu.
type snapshot struct {
	view       []Item
	pending    []Item
	firstUser  *Item
	fromStart  bool
	lastSeq    int64
	usage      *Usage
	unreadable int
}

func (st *sessionState) snapshot() snapshot {
	s := snapshot{
		view:       append([]Item(nil), st.view...),
		pending:    append([]Item(nil), st.pending...),
		fromStart:  st.fromStart,
		lastSeq:    st.lastSeq,
		unreadable: st.unreadable,
	}
	if st.firstUser != nil {
		fu := *st.firstUser
		s.firstUser = &fu
	}
	if st.usage != nil {
		u := *st.usage
		s.usage = &u
	}
	return s
}

// absorb puts the state rebuilt from the session's start (earlier) in front
// of what Observe saw since (st), dropping any overlap.
func (st *sessionState) absorb(earlier *sessionState, complete bool) {
	if earlier.seen {
		var later []Item
		for _, it := range st.view {
			if it.Seq > earlier.lastSeq {
				later = append(later, it)
			}
		}
		if !st.sawCheckpoint {
			later = append(earlier.view, later...)
		}
		st.view = later
		st.pending = append(earlier.pending, st.pending...)
		if earlier.firstUser != nil {
			st.firstUser = earlier.firstUser
		}
		if st.usage == nil {
			st.usage = earlier.usage
		}
		if st.lastUserSeq == 0 {
			st.lastUserSeq = earlier.lastUserSeq
		}
		st.unreadable += earlier.unreadable
		st.sawCheckpoint = st.sawCheckpoint || earlier.sawCheckpoint
		st.firstSeq = earlier.firstSeq
		if !st.seen || st.lastSeq < earlier.lastSeq {
			st.lastSeq = earlier.lastSeq
		}
		st.seen = true
	}
	st.fromStart = complete
}

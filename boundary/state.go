package boundary

import (
	"strings"
	"sync"

	"github.com/continuity-dev/continuity/dshevent"
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
	priorPrompt    bool   // a non-blank person's prompt has been observed
	lastUserSeq    int64
	usage          *Usage
	window         int64 // DSH's latest request/context window
	read           int64 // the tokens DSH's latest assistant/message read
	unreadable     int
	resetAll       bool               // a checkpoint without a replace range emptied the view
	shadows        []dshevent.Range   // the ranges checkpoints replaced, for absorb
	lastDecided    int64              // the last event seq a decision saw
	lastCheckpoint int64              // seq of the latest compaction checkpoint
	marks          []mark             // boundary events after lastDecided, in order
	calls          map[string]callRef // open tool calls: call id → the subject and target their result gets
	turn           int64              // the current turn (turn/start)
	turnPrompt     map[int64]int64    // turn → seq of the person's latest prompt in it
	outcome        turnOutcome        // what the current turn confirms so far
	boundaries     int64              // turn/end and compaction/start events observed
	attempted      int64              // decisions attempted at those triggers
	settled        chan struct{}      // closed (and replaced) when attempted moves
}

// maxShadows bounds the replaced ranges remembered for a later backfill;
// beyond it a checkpoint empties the view as if it named no range.
const maxShadows = 256

// checkpoint applies a compaction checkpoint: the events its surfaceOp
// replaces ({op:"replace", start, end} or {op:"replace", startSeq,
// endSeq}) leave the model-visible view, and everything after them stays.
// A checkpoint that names no range (another host's, or DSH's "append")
// replaces all the history before it.
func (st *sessionState) checkpoint(ev hostapi.Event) {
	st.lastCheckpoint = ev.Seq
	r, ok := dshevent.ReplaceRange(ev.SurfaceOp)
	if !ok || len(st.shadows) >= maxShadows {
		st.view, st.resetAll = nil, true
		return
	}
	st.view = shadowed(st.view, []dshevent.Range{r})
	st.shadows = append(st.shadows, r)
}

// shadowed returns the items of view outside every range, in place.
func shadowed(view []Item, ranges []dshevent.Range) []Item {
	kept := view[:0]
	for _, it := range view {
		in := false
		for _, r := range ranges {
			in = in || r.Contains(it.Seq)
		}
		if !in {
			kept = append(kept, it)
		}
	}
	return kept
}

// maxOpenCalls bounds the tool calls remembered while their results are
// outstanding; a result whose call was forgotten is named by its call id.
const maxOpenCalls = 4096

// apply folds one event into the state. Events at or before the last seen
// seq are replays and change nothing.
func (st *sessionState) apply(ev hostapi.Event) {
	if ev.Seq < 0 || st.seen && ev.Seq <= st.lastSeq {
		if ev.Seq < 0 {
			st.unreadable++
		}
		return
	}
	if !st.seen {
		// DSH numbers a session's events from 0; hosts that count from 1
		// start there.
		st.seen, st.firstSeq = true, ev.Seq
		st.fromStart = ev.Seq <= 1 || ev.Type == EventSessionCreated
	}
	st.lastSeq = ev.Seq
	p := parseEvent(ev)
	if p.unreadable {
		st.unreadable++
	}
	st.readUsage(ev.Seq, &p)
	if p.usage != nil {
		st.usage = p.usage
	}
	if p.checkpoint {
		st.checkpoint(ev)
	}
	if m, ok := markFor(ev.Type, ev.Seq, p.usage); ok {
		st.marks = append(st.marks, m)
	}
	st.track(ev, p)
	if p.userText != nil {
		st.lastUserSeq = ev.Seq
		if st.priorPrompt {
			p.items = withIntent(p.items, *p.userText)
		}
		if strings.TrimSpace(*p.userText) != "" {
			st.priorPrompt = true
			if st.firstUser == nil {
				st.firstUser = &Item{Seq: ev.Seq, Kind: KindRequest, Text: *p.userText}
			}
		}
	}
	for _, it := range p.items {
		st.view = append(st.view, it)
		if it.durable() {
			st.pending = append(st.pending, it)
		}
	}
	st.followOutcome(ev.Seq, p)
}

// readUsage turns DSH's readings into a usage: an assistant/message's
// tokens against the window of the latest request/context, and a new
// window (the route changed) against the tokens last read, since the next
// request carries at least those.
func (st *sessionState) readUsage(seq int64, p *parsed) {
	switch {
	case p.read != nil:
		st.read = *p.read
	case p.window > 0:
		st.window = p.window
	default:
		return
	}
	if st.window > 0 && st.read > 0 {
		p.usage = &Usage{Seq: seq, InputTokens: st.read, ContextWindow: st.window}
	}
}

// snapshot is a copy of what one decision reads, taken under Service.mu.
type snapshot struct {
	view       []Item
	pending    []Item
	firstUser  *Item
	fromStart  bool
	lastSeq    int64
	seen       bool // an event was applied: lastSeq 0 is then event 0, not none
	usage      *Usage
	unreadable int
}

func (st *sessionState) snapshot() snapshot {
	s := snapshot{
		view:       append([]Item(nil), st.view...),
		pending:    append([]Item(nil), st.pending...),
		fromStart:  st.fromStart,
		lastSeq:    st.lastSeq,
		seen:       st.seen,
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
		if !st.resetAll {
			later = append(shadowed(earlier.view, st.shadows), later...)
		}
		st.view = later
		st.pending = append(earlier.pending, st.pending...)
		if earlier.firstUser != nil {
			st.firstUser = earlier.firstUser
		}
		if st.usage == nil {
			st.usage = earlier.usage
		}
		if st.window == 0 {
			st.window = earlier.window
		}
		if st.read == 0 {
			st.read = earlier.read
		}
		if st.lastUserSeq == 0 {
			st.lastUserSeq = earlier.lastUserSeq
		}
		st.unreadable += earlier.unreadable
		st.resetAll = st.resetAll || earlier.resetAll
		st.shadows = append(earlier.shadows, st.shadows...)
		st.firstSeq = earlier.firstSeq
		if !st.seen || st.lastSeq < earlier.lastSeq {
			st.lastSeq = earlier.lastSeq
		}
		st.seen = true
	}
	st.fromStart = complete
}

// track keeps what later events are read against: the open tool calls (a
// result takes its call's subject), the current turn and its person's
// prompt (what pin_task pins), and the latest boundary event.
func (st *sessionState) track(ev hostapi.Event, p parsed) {
	switch {
	case p.call != nil && p.call.id != "":
		if st.calls == nil {
			st.calls = map[string]callRef{}
		}
		if len(st.calls) < maxOpenCalls {
			st.calls[p.call.id] = *p.call
		}
	case p.resultOf != "":
		call, ok := st.calls[p.resultOf]
		if !ok {
			call.subject = "call " + p.resultOf
		}
		delete(st.calls, p.resultOf)
		for i := range p.items {
			p.items[i].Subject, p.items[i].Target = bounded(call.subject, 256), call.target
		}
	case p.turn != nil:
		st.turn = *p.turn
	case p.person:
		if st.turnPrompt == nil {
			st.turnPrompt = map[int64]int64{}
		}
		st.turnPrompt[st.turn] = ev.Seq
	}
	if ev.Type == "turn/end" || ev.Type == "compaction/start" {
		st.boundaries++
	}
}

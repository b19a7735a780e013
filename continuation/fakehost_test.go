package continuation

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sync"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/sqlstore"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// fakeHost is an in-memory host: session/create is idempotent by key,
// session/read answers by seq range (optionally in pages), sessions can be
// revoked, and create can be made to succeed and then report failure, the
// way a crash between the host's create and the plugin's commit looks.
type fakeHost struct {
	mu              sync.Mutex
	sessions        map[string]*fakeSession
	byKey           map[string]string
	creates         int
	revoked         map[string]bool
	failAfterCreate bool
	createAs        string // when set, create answers this existing id
	pageSize        int
	stallAfter      int64 // when > 0, reads from beyond this seq return nothing, incomplete
	emitted         []emitted
	beforeCreate    func() // when set, runs (without the lock) as each create begins
}

type fakeSession struct {
	events      []hostapi.Event
	title, pred string
	context     json.RawMessage
	header      *hostapi.SessionHeader
}

type emitted struct {
	event string
	args  []any
}

func newFakeHost() *fakeHost {
	return &fakeHost{sessions: map[string]*fakeSession{}, byKey: map[string]string{}, revoked: map[string]bool{}}
}

// add appends events to a session, numbering seq from the session's end.
func (h *fakeHost) add(sessionID string, evs ...hostapi.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[sessionID]
	if s == nil {
		s = &fakeSession{}
		h.sessions[sessionID] = s
	}
	for _, ev := range evs {
		ev.Seq = int64(len(s.events) + 1)
		if ev.Time == nil {
			ev.Time = json.RawMessage(fmt.Sprint(1700000000000 + ev.Seq))
		}
		s.events = append(s.events, ev)
	}
}

func (h *fakeHost) Create(ctx context.Context, req hostapi.CreateSession) (hostapi.Created, error) {
	// A real host rejects params outside the wire contract; so does the fake,
	// so that a key or context the host would refuse fails here first.
	if err := uicontract.Validate("wire/session/create.params", marshal(req)); err != nil {
		return hostapi.Created{}, diag.New("invalid-params", err.Error())
	}
	h.mu.Lock()
	hook := h.beforeCreate
	h.mu.Unlock()
	if hook != nil {
		hook()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.creates++
	if id, ok := h.byKey[req.IdempotencyKey]; ok {
		return hostapi.Created{SessionID: id, Created: false}, nil
	}
	id := h.createAs
	if id == "" {
		id = fmt.Sprintf("session-%d", len(h.sessions)+1)
		h.sessions[id] = &fakeSession{title: req.Title, pred: req.PredecessorID, context: req.Context, header: req.Header}
	}
	h.byKey[req.IdempotencyKey] = id
	if h.failAfterCreate {
		return hostapi.Created{}, diag.New("host-crashed", "the reply was lost")
	}
	return hostapi.Created{SessionID: id, Created: true}, nil
}

func (h *fakeHost) Read(ctx context.Context, sessionID string, from, to int64) (hostapi.Events, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.revoked[sessionID] {
		return hostapi.Events{}, diag.New("session-revoked", "access revoked")
	}
	s := h.sessions[sessionID]
	if s == nil {
		return hostapi.Events{}, diag.New("session-not-found", "no such session")
	}
	out := hostapi.Events{Events: []hostapi.Event{}, Complete: true}
	if h.stallAfter > 0 && from > h.stallAfter {
		out.Complete = false
		return out, nil
	}
	for _, ev := range s.events {
		if ev.Seq < from || ev.Seq > to || ev.Type == "" {
			continue
		}
		if h.pageSize > 0 && len(out.Events) == h.pageSize {
			out.Complete = false
			break
		}
		out.Events = append(out.Events, ev)
	}
	return out, nil
}

func (h *fakeHost) Emit(ctx context.Context, event string, args ...any) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.emitted = append(h.emitted, emitted{event, args})
	return nil
}

// sessionCount is how many sessions exist, seeded ones included.
func (h *fakeHost) sessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// setData replaces one event's data, as a source that changed after the
// manifest selected it; an empty type makes the event disappear.
func (h *fakeHost) setEvent(sessionID string, seq int64, typ string, data string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ev := &h.sessions[sessionID].events[seq-1]
	ev.Type, ev.Data = typ, json.RawMessage(data)
}

// env is one test's store directory, host and service.
type env struct {
	t    *testing.T
	dir  string
	host *fakeHost
	db   *sql.DB
	svc  *Service
	now  time.Time
	opts Options
}

func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir(), host: newFakeHost(), now: time.UnixMilli(1_800_000_000_000), opts: opts}
	e.open()
	return e
}

// open opens (or, after closeStore, reopens) the store: a process restart.
func (e *env) open() {
	e.t.Helper()
	db, err := sqlstore.Open(e.dir)
	if err != nil {
		e.t.Fatal(err)
	}
	e.db = db
	e.t.Cleanup(func() { db.Close() })
	o := e.opts
	o.Now = func() time.Time { return e.now }
	if e.svc, err = Open(context.Background(), db, e.host, e.host, o); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) restart() {
	e.t.Helper()
	e.db.Close()
	e.open()
}

// call runs one tool call and returns its result.
func (e *env) call(session, callID, name string, args any) ToolResult {
	e.t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, _ := json.Marshal(args)
		raw = string(b)
	}
	res, err := e.svc.Tool(context.Background(), ToolCall{SessionID: session, Turn: turnOf(callID), CallID: callID, Name: name, Arguments: json.RawMessage(raw)})
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// turnOf gives each call id a turn of its own (always the same one, so a
// replay is a replay): a continuation ends its turn, so tests that
// continue one session several times do it in several turns.
func turnOf(callID string) int64 {
	h := fnv.New32a()
	h.Write([]byte(callID))
	return 1 + int64(h.Sum32()%1_000_000)
}

package turns

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// fakePolicy resolves from a map; block, when set, is called inside
// Resolve so a test can act while the host is being asked.
type fakePolicy struct {
	mu    sync.Mutex
	on    map[string]bool
	calls int
	block func()
}

func (p *fakePolicy) set(id string, on bool) {
	p.mu.Lock()
	p.on[id] = on
	p.mu.Unlock()
}

func (p *fakePolicy) Resolve(_ context.Context, id string, _ *hostapi.SessionHeader) (settings.Resolution, error) {
	p.mu.Lock()
	p.calls++
	on, block := p.on[id], p.block
	p.mu.Unlock()
	if block != nil {
		block()
	}
	return settings.Resolution{Enabled: on, Source: SourceSession, Revision: 1}, nil
}

// fakeConsent is a one-turn consent set.
type fakeConsent struct {
	mu  sync.Mutex
	set map[string]bool
}

func (c *fakeConsent) Consume(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ok := c.set[id]
	delete(c.set, id)
	return ok
}

// fakeAgents answers agents/get for known sessions.
type fakeAgents struct {
	mu      sync.Mutex
	missing map[string]bool
}

func (f *fakeAgents) Get(_ context.Context, id string) (hostapi.Agent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.missing[id] {
		return hostapi.Agent{}, diag.New("session-not-found", "no such session")
	}
	return hostapi.Agent{SessionID: id, Status: "idle"}, nil
}

// recorder is the Emitter: it checks every notice against the ui-contract
// schema of the continuity.notice event and keeps it.
type recorder struct {
	t  *testing.T
	mu sync.Mutex
	ns []Notice
}

func (r *recorder) Emit(_ context.Context, event string, args ...any) error {
	b, err := json.Marshal(args)
	if err != nil {
		r.t.Errorf("notice does not encode: %v", err)
		return err
	}
	if err := uicontract.Validate("event/"+event+".args", b); err != nil {
		r.t.Errorf("%s violates the contract: %v\n%s", event, err, b)
	}
	r.mu.Lock()
	r.ns = append(r.ns, args[0].(Notice))
	r.mu.Unlock()
	return nil
}

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// rig is a Manager with fakes around it.
type rig struct {
	*Manager
	t       *testing.T
	policy  *fakePolicy
	consent *fakeConsent
	agents  *fakeAgents
	events  *recorder
	clock   *clock
}

func newRig(t *testing.T) *rig {
	r := &rig{t: t, policy: &fakePolicy{on: map[string]bool{}}, consent: &fakeConsent{set: map[string]bool{}},
		agents: &fakeAgents{missing: map[string]bool{}}, events: &recorder{t: t}, clock: &clock{now: time.UnixMilli(1_700_000_000_000)}}
	r.Manager = New(Options{Policy: r.policy, Consent: r.consent, Agents: r.agents, Emitter: r.events,
		Now: r.clock.Now})
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}

// event applies a session event.
func (r *rig) event(sid, typ string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		r.t.Fatal(err)
	}
	r.Observe(hostapi.SessionEvent{SessionID: sid, Event: hostapi.Event{Type: typ, Data: b}})
}

func (r *rig) endTurn(sid string, turn int64) {
	r.event(sid, "turn/end", map[string]any{"turn": turn, "reason": map[string]any{"kind": "completed"}})
}

// admit sends agent/request for the managed provider and model m1.
func (r *rig) admit(sid string, turn, step int64, rid string) (*Admission, error) {
	return r.admitModel(sid, turn, step, rid, "m1")
}

func (r *rig) admitModel(sid string, turn, step int64, rid, model string) (*Admission, error) {
	req := AgentRequest{SessionID: sid, Turn: turn, Step: step, RequestID: rid}
	req.Config.Provider, req.Config.Model = Provider, model
	return r.Admit(context.Background(), req)
}

func (r *rig) mustAdmit(sid string, turn, step int64, rid string) *Admission {
	r.t.Helper()
	a, err := r.admit(sid, turn, step, rid)
	if err != nil {
		r.t.Fatalf("admit %s turn %d step %d: %v", sid, turn, step, err)
	}
	return a
}

// chat sends a chat llm/payload.
func (r *rig) chat(sid string, turn, step int64, rid string, body []byte) (PayloadResult, error) {
	return r.Payload(context.Background(), PayloadRequest{RequestID: rid, SessionID: sid, Turn: turn, Step: step,
		Provider: Provider, Model: "m1", Purpose: "chat"}, body)
}

// summary sends a compaction llm/payload.
func (r *rig) summary(sid, cid string, turn int64, model string, body []byte) (PayloadResult, error) {
	return r.Payload(context.Background(), PayloadRequest{RequestID: "sum-" + cid, SessionID: sid, Turn: turn, Step: 1,
		Provider: Provider, Model: model, Purpose: "compaction", CompactionID: cid}, body)
}

// noticesOf waits for the notifier to flush and returns the notices sent.
func (r *rig) sent() []Notice {
	r.notices.close(context.Background())
	r.events.mu.Lock()
	defer r.events.mu.Unlock()
	return append([]Notice(nil), r.events.ns...)
}

// rs is a reasoning item; cipher is its encrypted_content.
func rs(id, cipher string) string {
	return `{"type":"reasoning","id":"` + id + `","summary":[{"type":"summary_text","text":"thinking"}],"encrypted_content":"` + cipher + `"}`
}

// fc is the function call paired with reasoning n.
func fc(n int) string {
	return fmt.Sprintf(`{"type":"function_call","id":"fc_%d","call_id":"call_%d","name":"read","arguments":"{}"}`, n, n)
}

func out(n int) string {
	return fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":"ok"}`, n)
}

func user(text string) string {
	return `{"role":"user","content":"` + text + `"}`
}

// body is a Responses request with these input items.
func body(items ...string) []byte {
	return []byte(`{"model":"m1","input":[` + strings.Join(items, ",") + `],"store":false}`)
}

// wantCode fails unless err carries code.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := diag.CodeOf(err); got != code {
		t.Fatalf("error %v has code %q, want %q", err, got, code)
	}
}

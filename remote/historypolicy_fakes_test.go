package remote

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/settings/settingstest"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// agents is a host double for agents/get.
type agents struct {
	mu       sync.Mutex
	sessions map[string]*hostapi.SessionHeader
	calls    int
}

func (a *agents) Get(_ context.Context, id string) (hostapi.Agent, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	switch id {
	case "busy":
		return hostapi.Agent{}, diag.New("agent-busy", "the agent is busy")
	case "broken":
		return hostapi.Agent{}, errors.New("write |1: broken pipe")
	case "impostor":
		return hostapi.Agent{SessionID: "someone-else", Status: "idle"}, nil
	}
	h, ok := a.sessions[id]
	if !ok {
		return hostapi.Agent{}, diag.New("session-not-found", "no such session")
	}
	return hostapi.Agent{SessionID: id, Header: h, Status: "idle"}, nil
}

// turnState is a turn-lifecycle double.
type turnState struct {
	active     map[string]bool
	compaction map[string][2]string
}

func (t *turnState) ActiveTurnEnabled(id string) (bool, bool) { on, ok := t.active[id]; return on, ok }
func (t *turnState) Compaction(id string) (string, string, bool) {
	c, ok := t.compaction[id]
	return c[0], c[1], ok
}

// emitter records events after checking them against their schema.
type emitter struct {
	t      *testing.T
	events []string // JSON of each event's args array
}

func (e *emitter) Emit(_ context.Context, event string, args ...any) error {
	b, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	if event != PolicyChangedEvent {
		e.t.Errorf("event %q, want %q", event, PolicyChangedEvent)
	}
	if err := uicontract.Validate("event/"+PolicyChangedEvent+".args", b); err != nil {
		e.t.Errorf("event args %s do not match their schema: %v", b, err)
	}
	e.events = append(e.events, string(b))
	return nil
}

// take returns and clears the recorded events.
func (e *emitter) take() []string { ev := e.events; e.events = nil; return ev }

// rig is a Remote over doubles: sessions "fresh" (born after activation),
// "old" (born before), "seeded" and "fork".
type rig struct {
	t         *testing.T
	rc        *HistoryPolicy
	store     *settingstest.Memory
	agents    *agents
	turnState *turnState
	emit      *emitter
	consent   *Consent
	clock     *int64
}

const epoch = 10_000

func newRig(t *testing.T) *rig {
	ms := int64(epoch)
	r := &rig{t: t, store: &settingstest.Memory{}, clock: &ms, consent: NewConsent(),
		turnState: &turnState{active: map[string]bool{}, compaction: map[string][2]string{}}, emit: &emitter{t: t}}
	r.agents = &agents{sessions: map[string]*hostapi.SessionHeader{
		"fresh":  {CreatedAt: new(int64(epoch + 5))},
		"old":    {CreatedAt: new(int64(epoch - 5))},
		"seeded": {CreatedAt: new(int64(epoch + 5)), IsSeeded: true},
		"fork":   {CreatedAt: new(int64(epoch + 5)), ParentSession: "fresh"},
	}}
	p := r.policy()
	if err := p.Activate(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.rc = NewHistoryPolicy(p, r.agents, r.turnState, r.emit, r.consent)
	return r
}

func (r *rig) policy() *settings.Policy {
	return settings.NewPolicy(r.store, settings.WithClock(func() time.Time { return time.UnixMilli(*r.clock) }))
}

// call invokes a method and checks the envelope against the wire schema
// and, on success, the value against the method's value schema. It returns
// the envelope as JSON.
func (r *rig) call(method, args string) string {
	r.t.Helper()
	env := r.rc.Invoke(context.Background(), method, json.RawMessage(args))
	b, err := json.Marshal(env)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := uicontract.Validate("wire/remote/invoke.result", b); err != nil {
		r.t.Errorf("%s(%s): envelope %s: %v", method, args, b, err)
	}
	if env.OK {
		v, _ := json.Marshal(env.Value)
		if err := uicontract.Validate("remote/"+HistoryPolicyNamespace+"/"+method+".value", v); err != nil {
			r.t.Errorf("%s(%s): value %s: %v", method, args, v, err)
		}
	}
	return string(b)
}

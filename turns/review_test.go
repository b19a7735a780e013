package turns

import (
	"fmt"
	"testing"
)

// A policy-off turn is never blocked: the plugin filters nothing there, so
// a model change or a late payload goes out native rather than REVOKED.
func TestPolicyOffTurnIsNeverBlocked(t *testing.T) {
	r := newRig(t)
	if a := r.mustAdmit("s1", 1, 1, "r1"); a.Enabled {
		t.Fatal("the fake policy should be off")
	}
	if _, err := r.admitModel("s1", 1, 2, "r2", "m2"); err != nil {
		t.Fatal(err)
	}
	res, err := r.Payload(t.Context(), PayloadRequest{RequestID: "r2", SessionID: "s1", Turn: 1, Step: 2,
		Provider: Provider, Model: "m2", Purpose: "chat"}, []byte(`{"input":[]}`))
	if err != nil || res.Outcome != OutcomeNative {
		t.Fatalf("model change in a policy-off turn: %v %v", res.Outcome, err)
	}
}

// An agent lookup that fails leaves the birth evidence unknown: the turn is
// admitted with the policy that evidence gives (off without a row), not
// refused with the host's lookup error.
func TestFailedAgentLookupAdmitsWithUnknownBirth(t *testing.T) {
	r := newRig(t)
	r.agents.missing["s1"] = true
	a, err := r.admit("s1", 1, 1, "r1")
	if err != nil {
		t.Fatalf("admission failed on the lookup: %v", err)
	}
	if a == nil || a.Enabled {
		t.Fatalf("admission %+v, want off", a)
	}
	r.policy.set("s2", true)
	r.agents.missing["s2"] = true
	if a, err := r.admit("s2", 1, 1, "r2"); err != nil || !a.Enabled {
		t.Fatalf("a session's own row must still apply: %+v %v", a, err)
	}
}

// Sessions a host never disposes do not accumulate: beyond maxSessions the
// least recently used idle ones are forgotten, never one with a running turn.
func TestIdleSessionsAreEvicted(t *testing.T) {
	r := newRig(t)
	r.policy.set("busy", true)
	r.mustAdmit("busy", 1, 1, "rb")
	for i := 0; i < maxSessions+100; i++ {
		r.event(fmt.Sprintf("idle-%d", i), "account/selected", map[string]any{"accountId": "a"})
	}
	r.Manager.mu.Lock()
	n, busy := len(r.Manager.sessions), r.Manager.sessions["busy"]
	r.Manager.mu.Unlock()
	if n > maxSessions {
		t.Fatalf("%d sessions held, bound %d", n, maxSessions)
	}
	if busy == nil {
		t.Fatal("a session with a running turn was evicted")
	}
	if on, running := r.ActiveTurnEnabled("busy"); !running || !on {
		t.Fatal("the running turn lost its admission")
	}
}

func TestChatCompletionsDetection(t *testing.T) {
	for body, want := range map[string]bool{
		`{"model":"m","messages":[{"role":"user","content":"hi"}]}`:               true,
		`{"model":"m","input":[{"role":"user","content":"hi"}]}`:                  false,
		`{"messages":[],"input":[]}`:                                              false,
		`{"model":"m","input":[],"messages":[]}`:                                  false,
		`{"model":"m"}`:                                                           false,
		`{"model":"m","input":[{"type":"reasoning","encrypted_content":"gAAA"}]}`: false,
	} {
		if got := chatCompletions([]byte(body)); got != want {
			t.Errorf("%s: %v, want %v", body, got, want)
		}
	}
}

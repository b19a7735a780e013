package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

func TestAuthorizeNextIsOneTurnOnly(t *testing.T) {
	r := newRig(t)
	steps := []struct {
		name, args, want string
		events           []string
	}{
		{"authorize", `{"agentId":"old","revision":1,"enabled":true}`,
			`{"ok":true,"value":{"enabled":false,"revision":1,"source":"default","nextTurnAuthorized":true}}`,
			[]string{`[{"agentId":"old","enabled":false,"revision":1,"source":"default","nextTurnAuthorized":true}]`}},
		{"authorize again", `{"agentId":"old","revision":1,"enabled":true}`,
			`{"ok":true,"value":{"enabled":false,"revision":1,"source":"default","nextTurnAuthorized":true}}`, nil},
		{"stale revision", `{"agentId":"old","revision":0,"enabled":true}`,
			`{"ok":false,"error":{"code":"COPILOT_CONTINUATION_CONFLICT","message":"settings namespace \"github-copilot\" changed since it was read (expected revision 0, now 1)","details":{"actual":1,"expected":0}}}`, nil},
		{"withdraw", `{"agentId":"old","revision":1,"enabled":false}`,
			`{"ok":true,"value":{"enabled":false,"revision":1,"source":"default"}}`,
			[]string{`[{"agentId":"old","enabled":false,"revision":1,"source":"default"}]`}},
		{"authorize once more", `{"agentId":"old","revision":1,"enabled":true}`,
			`{"ok":true,"value":{"enabled":false,"revision":1,"source":"default","nextTurnAuthorized":true}}`,
			[]string{`[{"agentId":"old","enabled":false,"revision":1,"source":"default","nextTurnAuthorized":true}]`}},
	}
	for _, s := range steps {
		if got := r.call("authorizeNext", s.args); got != s.want {
			t.Fatalf("%s:\n got %s\nwant %s", s.name, got, s.want)
		}
		if ev := r.emit.take(); fmt.Sprint(ev) != fmt.Sprint(s.events) {
			t.Fatalf("%s: events %v, want %v", s.name, ev, s.events)
		}
	}
	if r.store.Mutates() != 1 {
		t.Fatalf("one-turn consent wrote settings (%d writes after activation)", r.store.Mutates()-1)
	}
	// Admission consumes it exactly once.
	if !r.consent.Consume("old") || r.consent.Consume("old") {
		t.Fatal("Consume did not take the consent exactly once")
	}
	if got := r.call("get", `{"agentId":"old"}`); got != `{"ok":true,"value":{"enabled":false,"revision":1,"source":"default"}}` {
		t.Fatalf("after admission: %s", got)
	}
}

func TestConsentLimit(t *testing.T) {
	c := NewConsent()
	for i := range MaxConsents {
		if err := c.Authorize(fmt.Sprintf("s%d", i)); err != nil {
			t.Fatalf("consent %d: %v", i, err)
		}
	}
	if err := c.Authorize("s0"); err != nil {
		t.Fatalf("re-authorizing a waiting session: %v", err)
	}
	err := c.Authorize("one-too-many")
	var d *diag.Error
	if !errors.As(err, &d) || d.Code != diag.ConsentLimit {
		t.Fatalf("2,049th consent: %v, want CONSENT_LIMIT", err)
	}
	if !c.Consume("s7") || c.Authorize("one-too-many") != nil {
		t.Fatal("a consumed consent did not free its slot")
	}

	r := newRig(t)
	r.rc.consent = c
	if got := r.call("authorizeNext", `{"agentId":"old","revision":1,"enabled":true}`); !strings.HasPrefix(got, `{"ok":false,"error":{"code":"COPILOT_CONTINUATION_CONSENT_LIMIT"`) {
		t.Fatalf("authorizeNext over the limit = %s", got)
	}
}

// TestRestart: a new process (new Policy and Consent over the same store)
// keeps explicit rows and loses one-turn consent.
func TestRestart(t *testing.T) {
	r := newRig(t)
	r.call("set", `{"agentId":"old","revision":1,"enabled":true}`)
	r.call("authorizeNext", `{"agentId":"seeded","revision":2,"enabled":true}`)
	if !r.consent.Authorized("seeded") {
		t.Fatal("consent not recorded")
	}
	restarted := NewHistoryPolicy(r.policy(), r.agents, nil, nil, NewConsent())
	if err := r.policy().Activate(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.rc, r.consent = restarted, restarted.consent
	for id, want := range map[string]string{
		"old":    `{"ok":true,"value":{"enabled":true,"revision":2,"source":"session"}}`,
		"seeded": `{"ok":true,"value":{"enabled":false,"revision":2,"source":"default"}}`,
	} {
		if got := r.call("get", `{"agentId":"`+id+`"}`); got != want {
			t.Errorf("%s after restart = %s, want %s", id, got, want)
		}
	}
	if r.store.Mutates() != 2 {
		t.Fatalf("restart activation wrote again (%d writes)", r.store.Mutates())
	}
}

package server_test

import (
	"slices"
	"testing"

	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// Issue 28 #9 (seed 003): the enabled disclosure stays compact and its
// details carry the disable action. A DSH turn filtered with the policy
// on has a notice whose details name the disclosure and
// disableContinuation; performing it (set enabled false) makes the next
// turn native, and its notice carries no such details.
func TestDSHEnabledNoticeDetailsCarryDisable(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	s := dshHOpen(t, h, "sess-details", false)
	s.prompt(t, 1, "Fix the failing login test.")
	if a, rerr := s.request(t, 1, 1, "req_1_1", "acct-A"); rerr != nil || a == nil || !a.Enabled {
		t.Fatalf("admission: %+v %v", a, rerr)
	}
	body := payloadgen.Generate(payloadgen.Spec{Seed: 41, Size: 16 << 10, Reasoning: 2}).Body
	if res, rerr := turnsXChat(t, h, s.id, 1, 1, "req_1_1", body); rerr != nil || res.Outcome != "filtered" {
		t.Fatalf("step 1: %s %v", res.Outcome, rerr)
	}
	n, ok := turnsXNotice(t, h, s.id, "turn:1")
	if !ok || n.Details == nil || n.Details.DisclosureKey != "notice.enabled.details" || !slices.Equal(n.Details.Actions, []string{"disableContinuation"}) {
		t.Fatalf("the enabled notice's details: %+v", n)
	}
	s.answer(t, 1, "Fixed.")
	turnsXRemote(t, h, "set", map[string]any{"agentId": s.id, "revision": turnsXRevision(t, h, s.id), "enabled": false})
	s.prompt(t, 2, "And the signup test.")
	if a, rerr := s.request(t, 2, 1, "req_2_1", "acct-A"); rerr != nil || a == nil || a.Enabled {
		t.Fatalf("after disabling: %+v %v", a, rerr)
	}
	if res, rerr := turnsXChat(t, h, s.id, 2, 1, "req_2_1", body); rerr != nil || res.Outcome != "native" {
		t.Fatalf("step 1 after disabling: %s %v", res.Outcome, rerr)
	}
	if n, ok := turnsXNotice(t, h, s.id, "turn:2"); ok && n.Details != nil {
		t.Fatalf("a policy-off notice carries the disable action: %+v", n)
	}
}

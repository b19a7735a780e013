package server_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// pauseXChoose answers an account-switch pause through continuity/accountSwitch.
func pauseXChoose(t *testing.T, h *host.Host, sid, account, choice string) string {
	t.Helper()
	r, err := h.RemoteInvoke(ctxT(t), "continuity", "accountSwitch", map[string]any{"agentId": sid, "accountId": account, "choice": choice})
	if err != nil || !r.OK {
		t.Fatalf("accountSwitch %s: %v %+v", choice, err, r.Error)
	}
	return gjson.GetBytes(r.Value, "reason").Str
}

// pauseXWantPaused fails unless agent/request was answered
// ACCOUNT_SWITCH_PAUSED with the three choices, and the accountSwitch
// notice is live for the session.
func pauseXWantPaused(t *testing.T, h *host.Host, what, sid string, a *host.Admission, rerr *host.RPCError) {
	t.Helper()
	if a != nil {
		t.Fatalf("%s: admitted %+v, want a pause", what, a)
	}
	turnsXWantCode(t, what, rerr, "ACCOUNT_SWITCH_PAUSED")
	var data struct {
		Choices  []string `json:"choices"`
		NoticeID string   `json:"noticeId"`
	}
	if err := json.Unmarshal(rerr.Data, &data); err != nil || !slices.Equal(data.Choices, []string{"enable", "keepOff", "cancel"}) {
		t.Fatalf("%s: data %s", what, rerr.Data)
	}
	n, ok := turnsXNotice(t, h, sid, data.NoticeID)
	if !ok || n.Kind != "accountSwitch" || n.Offer == nil || len(n.Offer.Choices) != 3 {
		t.Fatalf("%s: no accountSwitch notice %q: %+v", what, data.NoticeID, n)
	}
}

// Issue 28 #1: DSH has no account event and no client asks
// continuity/accountSwitch first; it only sends agent/request with
// accountId. A switch while the policy is off pauses the turn there — a
// named code and an accountSwitch notice — and the person's choice decides
// the next agent/request: cancel keeps the old account (the new one pauses
// again), keepOff lets it through unfiltered, enable lets it through
// filtered. The pause and the choices hold across restarts of the plugin on
// the same data directory, and nothing pauses while the policy is on or the
// account is the same.
func TestDSHAccountSwitchPausesAtAgentRequest(t *testing.T) {
	dir := t.TempDir()
	const sid = "sess-switch"
	var h *host.Host
	var s *dshHSession
	start := func(seq int64) {
		h = initialized(t, host.Config{DataDir: dir}, host.AllCapabilities())
		s = dshHOpen(t, h, sid, true) // seeded: the policy resolves off
		s.seq = seq
	}
	start(0)
	s.prompt(t, 1, "Fix the failing login test.")
	if a, rerr := s.request(t, 1, 1, "req_1_1", "acct-A"); rerr != nil || a == nil || a.Enabled {
		t.Fatalf("turn 1 on acct-A: %+v %v", a, rerr)
	}
	s.answer(t, 1, "Fixed.")

	s.prompt(t, 2, "Now the signup test.")
	a, rerr := s.request(t, 2, 1, "req_2_1", "acct-B")
	pauseXWantPaused(t, h, "turn 2 on acct-B", sid, a, rerr)
	if _, err := h.WaitEvent(ctxT(t), "continuity.notice", func(n host.Notification) bool {
		return gjson.GetBytes(n.Args, "0.kind").Str == "accountSwitch"
	}); err != nil {
		t.Fatalf("no continuity.notice for the pause: %v", err)
	}
	a, rerr = s.request(t, 2, 1, "req_2_1", "acct-B")
	pauseXWantPaused(t, h, "turn 2 on acct-B again, before a choice", sid, a, rerr)
	s.event(t, "turn/end", dsh.TurnEnd(2, "error"))

	// A restart remembers the account the history was made with.
	seq := s.seq
	h.Close()
	start(seq)
	s.prompt(t, 3, "Now the signup test.")
	a, rerr = s.request(t, 3, 1, "req_3_1", "acct-B")
	pauseXWantPaused(t, h, "after a restart, turn 3 on acct-B", sid, a, rerr)

	if got := pauseXChoose(t, h, sid, "acct-B", "cancel"); got != "cancelled" {
		t.Fatalf("cancel: %s", got)
	}
	a, rerr = s.request(t, 3, 1, "req_3_1", "acct-B")
	pauseXWantPaused(t, h, "after cancel, acct-B", sid, a, rerr)
	if a, rerr := s.request(t, 3, 1, "req_3_1", "acct-A"); rerr != nil || a == nil || a.Enabled {
		t.Fatalf("after cancel, the old account: %+v %v", a, rerr)
	}
	s.answer(t, 3, "Done.")

	s.prompt(t, 4, "Carry on.")
	a, rerr = s.request(t, 4, 1, "req_4_1", "acct-B")
	pauseXWantPaused(t, h, "turn 4 on acct-B", sid, a, rerr)
	if got := pauseXChoose(t, h, sid, "acct-B", "keepOff"); got != "keptOff" {
		t.Fatalf("keepOff: %s", got)
	}
	if _, ok := turnsXNotice(t, h, sid, gjson.GetBytes(rerr.Data, "noticeId").Str); ok {
		t.Fatal("the accountSwitch notice is still live after the choice")
	}
	if a, rerr := s.request(t, 4, 1, "req_4_1", "acct-B"); rerr != nil || a == nil || a.Enabled {
		t.Fatalf("after keepOff, acct-B: %+v %v", a, rerr)
	}
	s.answer(t, 4, "Done.")

	seq = s.seq
	h.Close()
	start(seq)
	s.prompt(t, 5, "Carry on.")
	if a, rerr := s.request(t, 5, 1, "req_5_1", "acct-B"); rerr != nil || a == nil || a.Enabled {
		t.Fatalf("after a restart, the kept-off account: %+v %v", a, rerr)
	}
	s.answer(t, 5, "Done.")

	s.prompt(t, 6, "Back to the first account.")
	a, rerr = s.request(t, 6, 1, "req_6_1", "acct-A")
	pauseXWantPaused(t, h, "turn 6 back on acct-A", sid, a, rerr)
	if got := pauseXChoose(t, h, sid, "acct-A", "enable"); got != "enabled" {
		t.Fatalf("enable: %s", got)
	}
	a, rerr = s.request(t, 6, 1, "req_6_1", "acct-A")
	if rerr != nil || a == nil || !a.Enabled || a.Source != "session" {
		t.Fatalf("after enable: %+v %v", a, rerr)
	}
	if v := dshView(t, h, sid); !gjson.GetBytes(v, "enabled").Bool() || gjson.GetBytes(v, "source").Str != "session" {
		t.Fatalf("the session's policy after enable: %s", v)
	}
	s.answer(t, 6, "Done.")

	// With the policy on, a switch needs no choice.
	s.prompt(t, 7, "Once more.")
	if a, rerr := s.request(t, 7, 1, "req_7_1", "acct-C"); rerr != nil || a == nil || !a.Enabled {
		t.Fatalf("policy on, acct-C: %+v %v", a, rerr)
	}
}

// Issue 28 #9: a session whose latest agent/request was on a route that
// does not take part gets notManaged from continuity/accountSwitch, so a
// client can hide the control there; back on the Copilot route, the
// question is asked again.
func TestDSHAccountSwitchNotManagedRoute(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	s := dshHOpen(t, h, "sess-route", true)
	s.prompt(t, 1, "Explain the build failure.")
	if a, rerr := s.request(t, 1, 1, "req_1_1", "acct-A"); rerr != nil || a == nil {
		t.Fatalf("copilot turn: %+v %v", a, rerr)
	}
	s.answer(t, 1, "It is the cache.")
	s.prompt(t, 2, "And on the other model?")
	res, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: s.id, Turn: 2, Step: 1, RequestID: "req_2_1",
		AccountID: "acct-B", Config: host.LLMConfig{Provider: "deepseek", Model: "deepseek-chat"}})
	if err != nil || res.Admission != nil {
		t.Fatalf("a route that does not take part: %+v %v", res.Admission, err)
	}
	ask := func() (bool, string) {
		r, err := h.RemoteInvoke(ctxT(t), "continuity", "accountSwitch", map[string]any{"agentId": s.id, "accountId": "acct-B"})
		if err != nil || !r.OK {
			t.Fatalf("accountSwitch: %v %+v", err, r.Error)
		}
		return gjson.GetBytes(r.Value, "pause").Bool(), gjson.GetBytes(r.Value, "reason").Str
	}
	if pause, reason := ask(); pause || reason != "notManaged" {
		t.Fatalf("on the other route: pause %v (%s), want notManaged", pause, reason)
	}
	s.answer(t, 2, "Same answer.")
	s.prompt(t, 3, "Back to Copilot.")
	a, rerr := s.request(t, 3, 1, "req_3_1", "acct-B")
	pauseXWantPaused(t, h, "back on the Copilot route with acct-B", s.id, a, rerr)
	if pause, _ := ask(); !pause {
		t.Fatal("back on the Copilot route, a switch does not pause")
	}
}

package server_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/fixtures/supplier"
	"github.com/continuity-dev/continuity/turns"
)

// turnsXRejection is what the supplier double answers to body for account.
func turnsXRejection(t *testing.T, cfg supplier.Config, account string, body []byte) *supplier.Rejection {
	t.Helper()
	sup, err := supplier.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var rej *supplier.Rejection
	if err := sup.Verify(account, body); !errors.As(err, &rej) {
		t.Fatalf("no rejection: %v", err)
	}
	return rej
}

// turnsXUnpaired is turn 2's first body with its reasoning cut out but the
// paired fc_/msg_ ids kept: what a filter that does not strip ids sends.
func turnsXUnpaired(t *testing.T) []byte {
	body := turnsXBody(t, "t2-s1-acct-A.json")
	var kept []string
	gjson.GetBytes(body, "input").ForEach(func(_, it gjson.Result) bool {
		if it.Get("type").Str != "reasoning" {
			kept = append(kept, it.Raw)
		}
		return true
	})
	return []byte(`{"model":"gpt-5.4","input":[` + string(bytes.Join(toBytes(kept), []byte(","))) + `],"store":false}`)
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// Every rejection envelope of docs/suppliers.md §2, as the supplier double
// answers it, is recognised: with the policy off the notice offers
// "Enable visible-history continuation" with the loss disclosure and
// Cancel; with it on, status and guidance. A pairing rejection gets
// guidance only. Unrelated failures offer nothing.
func TestTurnsReplayRejectionEnvelopes(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "off", false)
	turnsXSession(t, h, "on", true)
	foreign := turnsXBody(t, "t2-s1-acct-A.json")
	step := 0
	respond := func(sid string, status int, body []byte) string {
		step++
		rid := fmt.Sprintf("%s-%d", sid, step)
		if _, rerr := turnsXAdmit(t, h, sid, 1, step, rid, "acct-A", turnsXModel); rerr != nil {
			t.Fatal(rerr)
		}
		if err := h.LLMResponse(rid, status, string(body)); err != nil {
			t.Fatal(err)
		}
		return rid
	}
	type rejection struct {
		name   string
		status int
		body   []byte
	}
	var cases []rejection
	for _, env := range supplier.Envelopes() {
		cfg := supplier.PiAI()
		cfg.Envelope = env
		rej := turnsXRejection(t, cfg, "acct-A", foreign)
		cases = append(cases, rejection{string(env), rej.Status, rej.Body})
	}
	bound := supplier.PiAI()
	bound.BindIDs, bound.Envelope = true, supplier.CopilotWebSocket
	rej := turnsXRejection(t, bound, "acct-A", foreign)
	cases = append(cases, rejection{"connection-bound over a WebSocket, no status", 0, rej.Body})

	for _, c := range cases {
		for _, sid := range []string{"off", "on"} {
			rid := respond(sid, c.status, c.body)
			n, ok := turnsXNotice(t, h, sid, "replay:"+rid)
			switch {
			case !ok:
				t.Errorf("%s (%s): not recognised", c.name, sid)
			case sid == "off" && (n.Offer == nil || n.TextKey != "offer.enable.body" || n.Offer.DisclosureKey != "offer.disclosure" ||
				!slices.Equal([]string{n.Offer.Choices[0].ID, n.Offer.Choices[1].ID}, []string{"enable", "cancel"})):
				t.Errorf("%s (off): %+v", c.name, n)
			case sid == "on" && (n.Offer != nil || n.TextKey != "replay.rejectedWhileOn" || n.GuidanceKey != "replay.guidance.on"):
				t.Errorf("%s (on): %+v", c.name, n)
			}
		}
	}

	pairing := turnsXRejection(t, supplier.PiAI(), "acct-A", turnsXUnpaired(t))
	rid := respond("off", pairing.Status, pairing.Body)
	if n, ok := turnsXNotice(t, h, "off", "replay:"+rid); !ok || n.Offer != nil || n.TextKey != "replay.rejected" ||
		n.GuidanceKey != "replay.guidance.pairing" || n.Rejection.Kind != "pairing" {
		t.Errorf("pairing: %+v %v", n, ok)
	}

	// Unrelated failures, as the double answers them or as suppliers do.
	sup, err := supplier.New(supplier.PiAI())
	if err != nil {
		t.Fatal(err)
	}
	var unrelated []rejection
	for _, status := range []int{429, 500, 408} {
		if err := sup.Inject(status, 1); err != nil {
			t.Fatal(err)
		}
		st, _, out := sup.Handle("/v1/responses", "Bearer acct-A", "", foreign)
		unrelated = append(unrelated, rejection{fmt.Sprint(status), st, out})
	}
	unrelated = append(unrelated,
		rejection{"context overflow", 400, []byte(`{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`)},
		rejection{"bad credentials", 401, []byte(`{"error":{"message":"Bad credentials","code":"unauthorized"}}`)})
	var quiet []string
	for _, c := range unrelated {
		quiet = append(quiet, "replay:"+respond("off", c.status, c.body))
	}
	// A last rejection's event marks the end: events go out in order, so
	// any for the unrelated failures would have arrived before it.
	marker := respond("off", 400, cases[0].body)
	turnsXWaitNotice(t, h, "replay:"+marker, "offer.enable.body")
	for _, ev := range h.RemoteEvents("continuity.notice") {
		var args []struct{ ID string }
		if json.Unmarshal(ev.Args, &args) == nil && len(args) == 1 && slices.Contains(quiet, args[0].ID) {
			t.Errorf("an unrelated failure made notice %s", args[0].ID)
		}
	}
	for _, n := range turnsXNotices(t, h, "off").Notices {
		if slices.Contains(quiet, n.ID) {
			t.Errorf("an unrelated failure is listed: %s", n.ID)
		}
	}
}

// continuity/accountSwitch pauses only when the policy is off and the
// account really differs from the one the history was made with.
func TestTurnsAccountSwitch(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "off", false)
	turnsXSession(t, h, "on", true)
	ask := func(sid, account string) (pause bool, reason string, choices []string, disclosure string) {
		res, err := h.RemoteInvoke(ctxT(t), "continuity", "accountSwitch", map[string]any{"agentId": sid, "accountId": account})
		if err != nil || !res.OK {
			t.Fatalf("accountSwitch %s: %v %+v", sid, err, res.Error)
		}
		var v struct {
			Pause      bool
			Reason     string
			Choices    []string
			Disclosure string
		}
		if err := json.Unmarshal(res.Value, &v); err != nil {
			t.Fatal(err)
		}
		return v.Pause, v.Reason, v.Choices, v.Disclosure
	}
	if pause, reason, _, _ := ask("off", "acct-B"); pause || reason != "noHistory" {
		t.Fatalf("no history yet: %v %s", pause, reason)
	}
	for _, sid := range []string{"off", "on"} {
		if _, rerr := turnsXAdmit(t, h, sid, 1, 1, sid+"-r1", "acct-A", turnsXModel); rerr != nil {
			t.Fatal(rerr)
		}
		turnsXEndTurn(t, h, sid, 1)
	}
	if pause, reason, _, _ := ask("off", "acct-A"); pause || reason != "sameAccount" {
		t.Fatalf("same account: %v %s", pause, reason)
	}
	pause, _, choices, disclosure := ask("off", "acct-B")
	if !pause || !slices.Equal(choices, []string{"enable", "keepOff", "cancel"}) || disclosure != "accountSwitch.disclosure" {
		t.Fatalf("switch while off: %v %v %s", pause, choices, disclosure)
	}
	n := turnsXWaitNotice(t, h, "account:"+turns.AccountDigest("acct-B"), "accountSwitch.title")
	if n.Kind != "accountSwitch" || n.Policy != "off" || n.Offer == nil || len(n.Offer.Choices) != 3 {
		t.Fatalf("notice = %+v", n)
	}
	if pause, reason, _, _ := ask("on", "acct-B"); pause || reason != "policyOn" {
		t.Fatalf("switch while on: %v %s", pause, reason)
	}
	res, err := h.RemoteInvoke(ctxT(t), "continuity", "accountSwitch", map[string]any{"agentId": "nobody", "accountId": "acct-B"})
	if err != nil || res.OK || res.Error == nil || res.Error.Code != "session-not-found" {
		t.Fatalf("unknown agent: %v %+v", err, res.Error)
	}
}

package turns

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

const (
	foreignBody = `{"error":{"message":"The encrypted content gAAA…Rg== could not be verified. Reason: Encrypted content organization_id did not match the target organization.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`
	pairingBody = `{"error":{"message":"Item 'fc_3' of type 'function_call' was provided without its required 'reasoning' item: 'rs_3'.","type":"invalid_request_error","param":"input","code":null}}`
	wsBody      = `{"error":{"code":"bad_request","type":"websocket_error","message":"input item ID does not belong to this connection"}}`
)

// What a rejection shows depends on its kind and on the turn's policy:
// the enable offer only for a replay-scope rejection while off, guidance
// otherwise, nothing for unrelated failures.
func TestReplayRejectionNotices(t *testing.T) {
	for _, c := range []struct {
		name     string
		on       bool
		status   int
		body     string
		textKey  string
		offer    bool
		guidance string
	}{
		{"foreign content while off", false, 400, foreignBody, "offer.enable.body", true, ""},
		{"foreign content while on", true, 400, foreignBody, "replay.rejectedWhileOn", false, "replay.guidance.on"},
		{"a WebSocket frame without status", false, 0, wsBody, "offer.enable.body", true, ""},
		{"pairing while off", false, 400, pairingBody, "replay.rejected", false, "replay.guidance.pairing"},
		{"pairing while on", true, 400, pairingBody, "replay.rejected", false, "replay.guidance.pairing"},
		{"a rate limit", false, 429, `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`, "", false, ""},
		{"a context overflow", false, 400, `{"error":{"message":"Your input exceeds the context window of this model.","code":"context_length_exceeded"}}`, "", false, ""},
		{"an outage quoting the phrase", false, 503, foreignBody, "", false, ""},
		{"success", false, 200, foreignBody, "", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.policy.set("s1", c.on)
			r.mustAdmit("s1", 1, 1, "r1")
			r.Response("r1", c.status, c.body)
			ns := r.Notices("s1").Notices
			if c.textKey == "" {
				if len(ns) != 0 {
					t.Fatalf("an unrelated failure made notices: %+v", ns)
				}
				return
			}
			if len(ns) != 1 || ns[0].Kind != "replayRejected" || ns[0].TextKey != c.textKey || (ns[0].Offer != nil) != c.offer || ns[0].GuidanceKey != c.guidance {
				t.Fatalf("notices = %+v", ns)
			}
			if b := fmt.Sprintf("%+v", *ns[0].Rejection); strings.Contains(b, "gAAA") || strings.Contains(b, "verified") {
				t.Fatalf("supplier text in the notice: %s", b)
			}
			r.sent() // validates the event against the contract
		})
	}
}

// A rejection of an ended turn's request still reaches the user, with the
// policy that turn ran with.
func TestRejectionAfterTheTurnEnded(t *testing.T) {
	r := newRig(t)
	r.mustAdmit("s1", 1, 1, "r1")
	r.endTurn("s1", 1)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 2, 1, "r2")
	r.Response("r1", 400, foreignBody)
	ns := r.Notices("s1").Notices
	if len(ns) != 1 || ns[0].Policy != "off" || ns[0].Offer == nil || *ns[0].Turn != 1 {
		t.Fatalf("notices = %+v", ns)
	}
}

// Live notices expire 8 s after they settle, offers stay, and a session
// never lists more than maxLiveNotices.
func TestNoticeLifetimeAndBound(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	if _, err := r.chat("s1", 1, 1, "r1", body(user("q"))); err != nil {
		t.Fatal(err)
	}
	r.Response("r1", 400, foreignBody)
	if n := len(r.Notices("s1").Notices); n != 2 {
		t.Fatalf("%d notices", n)
	}
	r.clock.add(noticeLifeMs * time.Millisecond)
	ns := r.Notices("s1").Notices
	if len(ns) != 1 || ns[0].Kind != "replayRejected" {
		t.Fatalf("after 8 s: %+v", ns)
	}
	for i := 0; i < 3*maxLiveNotices; i++ {
		r.clock.add(time.Millisecond)
		r.Response("r1", 400, foreignBody)
		a := r.bound("r1")
		r.mu.Lock()
		r.requests.bind(fmt.Sprintf("x%d", i), a)
		r.mu.Unlock()
		r.Response(fmt.Sprintf("x%d", i), 400, foreignBody)
	}
	ns = r.Notices("s1").Notices
	if len(ns) != maxLiveNotices || ns[len(ns)-1].ID != fmt.Sprintf("replay:x%d", 3*maxLiveNotices-1) {
		t.Fatalf("%d notices, last %s", len(ns), ns[len(ns)-1].ID)
	}
}

func TestAccountSwitch(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	v, err := r.AccountSwitch(ctx, "s1", "acct-B")
	if err != nil || v.Pause || v.Reason != "noHistory" {
		t.Fatalf("no history: %+v %v", v, err)
	}
	req := AgentRequest{SessionID: "s1", Turn: 1, Step: 1, RequestID: "r1", AccountID: "acct-A"}
	req.Config.Provider, req.Config.Model = Provider, "m1"
	if _, err := r.Admit(ctx, req); err != nil {
		t.Fatal(err)
	}
	if v, _ := r.AccountSwitch(ctx, "s1", "acct-A"); v.Pause || v.Reason != "sameAccount" {
		t.Fatalf("same account: %+v", v)
	}
	v, err = r.AccountSwitch(ctx, "s1", "acct-B")
	if err != nil || !v.Pause || strings.Join(v.Choices, ",") != "enable,keepOff,cancel" || v.Disclosure != "accountSwitch.disclosure" {
		t.Fatalf("switch while off: %+v %v", v, err)
	}
	r.policy.set("s1", true)
	if v, _ := r.AccountSwitch(ctx, "s1", "acct-B"); v.Pause || v.Reason != "policyOn" {
		t.Fatalf("switch while on: %+v", v)
	}
	r.agents.missing["s1"] = true
	if _, err := r.AccountSwitch(ctx, "s1", "acct-B"); err == nil {
		t.Fatal("an unknown agent was answered")
	}
	ns := r.sent()
	if len(ns) != 1 || ns[0].Kind != "accountSwitch" || ns[0].Offer == nil || len(ns[0].Offer.Choices) != 3 {
		t.Fatalf("notices = %+v", ns)
	}
}

// The notifier sends everything queued before Close, in order, and stops.
func TestNotifierDrainsOnClose(t *testing.T) {
	rec := &recorder{t: t}
	n := newNotifier(context.Background(), rec, zap.NewNop())
	for i := 0; i < 100; i++ {
		turn := int64(i)
		n.send(Notice{ID: fmt.Sprintf("n%d", i), AgentID: "s1", Turn: &turn, Kind: "native", TextKey: "notice.native", Outcome: OutcomeNative, At: 1})
	}
	n.close(context.Background())
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.ns) != 100 || rec.ns[99].ID != "n99" {
		t.Fatalf("%d notices sent", len(rec.ns))
	}
}

package turns

import (
	"context"
	"errors"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// One admission per session and turn: the policy is resolved once, and a
// change of the persistent policy during the turn applies from the next.
func TestAdmissionIsCapturedOncePerTurn(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	if a := r.mustAdmit("s1", 1, 1, "r1"); !a.Enabled || a.Source != SourceSession {
		t.Fatalf("turn 1 = %+v", a)
	}
	r.policy.set("s1", false)
	if a := r.mustAdmit("s1", 1, 2, "r2"); !a.Enabled {
		t.Fatalf("step 2 must keep the captured policy, got %+v", a)
	}
	if on, running := r.ActiveTurnEnabled("s1"); !on || !running {
		t.Fatalf("active turn = %v %v", on, running)
	}
	if r.policy.calls != 1 {
		t.Fatalf("policy resolved %d times in one turn", r.policy.calls)
	}
	r.endTurn("s1", 1)
	if _, running := r.ActiveTurnEnabled("s1"); running {
		t.Fatal("an ended turn is still running")
	}
	if a := r.mustAdmit("s1", 2, 1, "r3"); a.Enabled {
		t.Fatalf("turn 2 must capture the changed policy, got %+v", a)
	}
}

func TestAdmissionRefusals(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(r *rig)
		turn  int64
		step  int64
		code  string
	}{
		{"an ended turn", func(r *rig) { r.mustAdmit("s1", 1, 1, "a"); r.endTurn("s1", 1) }, 1, 2, diag.TurnInvalid},
		{"a turn older than the admitted one", func(r *rig) { r.mustAdmit("s1", 3, 1, "a") }, 2, 1, diag.TurnInvalid},
		{"the next turn before turn/end", func(r *rig) { r.mustAdmit("s1", 1, 1, "a") }, 2, 1, diag.TurnUnsettled},
		{"step 0", func(r *rig) {}, 1, 0, diag.TurnInvalid},
		{"a negative turn", func(r *rig) {}, -1, 1, diag.TurnInvalid},
		{"a turn before the last ended one", func(r *rig) { r.mustAdmit("s1", 1, 1, "a"); r.endTurn("s1", 1) }, 0, 1, diag.TurnInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			c.setup(r)
			_, err := r.admit("s1", c.turn, c.step, "x")
			wantCode(t, err, c.code)
		})
	}
}

func TestOtherProvidersAreNotAdmitted(t *testing.T) {
	r := newRig(t)
	req := AgentRequest{SessionID: "s1", Turn: 1, Step: 1, RequestID: "r1"}
	req.Config.Provider, req.Config.Model = "openai", "gpt"
	a, err := r.Admit(context.Background(), req)
	if a != nil || err != nil {
		t.Fatalf("got %+v %v", a, err)
	}
	if r.policy.calls != 0 {
		t.Fatal("the policy was resolved for another provider")
	}
}

func TestAdmissionBlockedUntilActivation(t *testing.T) {
	r := newRig(t)
	r.opt.Ready = func() error { return errors.New("no epoch") }
	_, err := r.admit("s1", 1, 1, "r1")
	wantCode(t, err, diag.InitializationFailed)
}

// A legacy one-turn consent covers exactly the next admitted turn, and it
// is consumed even when the persistent policy is already on.
func TestConsentCoversOneTurn(t *testing.T) {
	r := newRig(t)
	r.consent.set["s1"] = true
	if a := r.mustAdmit("s1", 1, 1, "r1"); !a.Enabled || a.Source != SourceNextTurn {
		t.Fatalf("turn 1 = %+v", a)
	}
	if a := r.mustAdmit("s1", 1, 2, "r2"); !a.Enabled || a.Source != SourceNextTurn {
		t.Fatalf("step 2 of the consented turn = %+v", a)
	}
	r.endTurn("s1", 1)
	if a := r.mustAdmit("s1", 2, 1, "r3"); a.Enabled {
		t.Fatalf("the consent covered a second turn: %+v", a)
	}

	r.policy.set("s2", true)
	r.consent.set["s2"] = true
	if a := r.mustAdmit("s2", 1, 1, "q1"); a.Source != SourceSession {
		t.Fatalf("an on session keeps its own source, got %+v", a)
	}
	if r.consent.Consume("s2") {
		t.Fatal("the consent was not spent by the admitted turn")
	}
}

// Notifications that arrive while the policy is being resolved are
// honoured before anything is committed, and no consent is spent.
func TestAdmissionRechecksAfterResolving(t *testing.T) {
	for _, c := range []struct {
		name   string
		during func(r *rig, cancel context.CancelFunc)
		code   string
		ctxErr bool
	}{
		{"turn/end", func(r *rig, _ context.CancelFunc) { r.endTurn("s1", 1) }, diag.TurnInvalid, false},
		{"agent/disposed", func(r *rig, _ context.CancelFunc) { r.Dispose("s1") }, diag.Revoked, false},
		{"cancellation", func(_ *rig, cancel context.CancelFunc) { cancel() }, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.consent.set["s1"] = true
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r.policy.block = func() { c.during(r, cancel) }
			req := AgentRequest{SessionID: "s1", Turn: 1, Step: 1, RequestID: "r1"}
			req.Config.Provider, req.Config.Model = Provider, "m1"
			_, err := r.Admit(ctx, req)
			if c.ctxErr {
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("got %v, want context.Canceled", err)
				}
			} else {
				wantCode(t, err, c.code)
			}
			if !r.consent.set["s1"] {
				t.Fatal("a refused admission spent the consent")
			}
			if _, running := r.ActiveTurnEnabled("s1"); running {
				t.Fatal("a refused admission is running")
			}
		})
	}
}

// A different model inside a turn revokes it.
func TestModelChangeRevokesTheTurn(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	if _, err := r.admitModel("s1", 1, 2, "r2", "m2"); err != nil {
		t.Fatal(err)
	}
	_, err := r.chat("s1", 1, 1, "r1", body(user("hi")))
	wantCode(t, err, diag.Revoked)
	// A revoked turn is settled: the next turn may start before turn/end.
	if a := r.mustAdmit("s1", 2, 1, "r3"); !a.Enabled {
		t.Fatalf("turn 2 = %+v", a)
	}
}

func TestAccountOfHistory(t *testing.T) {
	r := newRig(t)
	r.event("s1", "account/selected", map[string]string{"accountId": "acct-A"})
	if got := r.LastAccount("s1"); got != AccountDigest("acct-A") {
		t.Fatalf("selected account = %q", got)
	}
	req := AgentRequest{SessionID: "s1", Turn: 1, Step: 1, RequestID: "r1", AccountID: "acct-B"}
	req.Config.Provider, req.Config.Model = Provider, "m1"
	// The policy is off: a request on another account pauses until the
	// person chooses.
	_, err := r.Admit(context.Background(), req)
	wantCode(t, err, diag.AccountSwitchPaused)
	if _, err := r.ChooseAccount(context.Background(), "s1", "acct-B", ChoiceKeepOff); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Admit(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := r.LastAccount("s1"); got != AccountDigest("acct-B") {
		t.Fatalf("admitted account = %q", got)
	}
}

// memAccounts is an Accounts that outlives a Manager, as the database does.
type memAccounts map[string]string

func (m memAccounts) Load(_ context.Context, id string) (string, error) { return m[id], nil }
func (m memAccounts) Save(_ context.Context, id, d string) error        { m[id] = d; return nil }

// DSH names the account only in agent/request: a later process still
// knows the digest, so switching to another account pauses while the
// policy is off, and the kept value is never the raw id.
func TestAccountKeptAcrossRestartAsDigest(t *testing.T) {
	kept := memAccounts{}
	r := newRig(t)
	first := New(Options{Policy: r.policy, Accounts: kept})
	t.Cleanup(func() { first.Close(context.Background()) })
	req := AgentRequest{SessionID: "s1", Turn: 1, Step: 1, RequestID: "r1", AccountID: "acct-A"}
	req.Config.Provider, req.Config.Model = Provider, "m1"
	if _, err := first.Admit(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if kept["s1"] != AccountDigest("acct-A") || kept["s1"] == "acct-A" {
		t.Fatalf("kept %q", kept["s1"])
	}
	restarted := New(Options{Policy: r.policy, Accounts: kept})
	t.Cleanup(func() { restarted.Close(context.Background()) })
	v, err := restarted.AccountSwitch(context.Background(), "s1", "acct-B")
	if err != nil || !v.Pause {
		t.Fatalf("switch after restart: %+v %v", v, err)
	}
	if v, _ := restarted.AccountSwitch(context.Background(), "s1", "acct-A"); v.Pause || v.Reason != "sameAccount" {
		t.Fatalf("same account after restart: %+v", v)
	}
}

// A fork that has not run a turn holds its parent's history: DSH says so
// only in the header's parentSession, so the parent's account decides
// whether a switch pauses.
func TestForkSwitchComparesWithTheParentsAccount(t *testing.T) {
	r := newRig(t)
	req := AgentRequest{SessionID: "parent", Turn: 1, Step: 1, RequestID: "r1", AccountID: "acct-A"}
	req.Config.Provider, req.Config.Model = Provider, "m1"
	if _, err := r.Admit(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r.Observe(hostapi.SessionEvent{SessionID: "fork", Header: &hostapi.SessionHeader{IsSeeded: true, ParentSession: "parent"},
		Event: hostapi.Event{Type: "turn/start", Data: []byte(`{"turn":1}`)}})
	if v, err := r.AccountSwitch(context.Background(), "fork", "acct-B"); err != nil || !v.Pause {
		t.Fatalf("fork switch to another account: %+v %v", v, err)
	}
	if v, _ := r.AccountSwitch(context.Background(), "fork", "acct-A"); v.Pause {
		t.Fatalf("fork switch to the parent's account paused: %+v", v)
	}
}

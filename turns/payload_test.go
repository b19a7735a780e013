package turns

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// Each turn's first payload fixes the baseline: its reasoning is history
// for the whole turn, reasoning made during the turn is kept for its later
// steps, and the next turn treats that as history too.
func TestBaselinePerTurn(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	t1 := body(user("q1"))
	if res, err := r.chat("s1", 1, 1, "r1", t1); err != nil || res.Outcome != OutcomeUnchanged {
		t.Fatalf("turn 1 step 1: %v %v", res.Outcome, err)
	}
	r.mustAdmit("s1", 1, 2, "r2")
	t1s2 := body(user("q1"), rs("rs_1", "AAAA"), fc(1), out(1))
	if res, err := r.chat("s1", 1, 2, "r2", t1s2); err != nil || res.Outcome != OutcomeUnchanged {
		t.Fatalf("turn 1 step 2 must keep its own reasoning: %v %v", res.Outcome, err)
	}
	r.endTurn("s1", 1)

	r.mustAdmit("s1", 2, 1, "r3")
	t2 := body(user("q1"), rs("rs_1", "AAAA"), fc(1), out(1), user("q2"))
	res, err := r.chat("s1", 2, 1, "r3", t2)
	if err != nil {
		t.Fatal(err)
	}
	want := body(user("q1"), `{"type":"function_call","call_id":"call_1","name":"read","arguments":"{}"}`, out(1), user("q2"))
	if res.Outcome != OutcomeFiltered || !bytes.Equal(res.Bytes(), want) {
		t.Fatalf("turn 2 step 1: %s\n%s", res.Outcome, res.Bytes())
	}
	if res.Omitted.Items != 1 || res.Omitted.CodeUnits != 4 || res.Omitted.StrippedIDs != 1 {
		t.Fatalf("omitted = %+v", res.Omitted)
	}
	r.mustAdmit("s1", 2, 2, "r4")
	t2s2 := body(user("q1"), rs("rs_1", "AAAA"), fc(1), out(1), user("q2"), rs("rs_2", "BBBB"), fc(2), out(2))
	res, err = r.chat("s1", 2, 2, "r4", t2s2)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res.Bytes()), "AAAA") || !strings.Contains(string(res.Bytes()), "BBBB") || !strings.Contains(string(res.Bytes()), `"fc_2"`) {
		t.Fatalf("turn 2 step 2 must omit rs_1 and keep rs_2 with fc_2:\n%s", res.Bytes())
	}
	ns := r.sent()
	last := ns[len(ns)-1]
	if last.Kind != "filtered" || last.Filtered == nil || last.Filtered.Items != 1 || last.Filtered.CodeUnits != 4 {
		t.Fatalf("last notice = %+v", last)
	}
}

// A later step without a first-step baseline (cold mid-turn recovery)
// fails explicitly and says so in a diagnostic notice.
func TestStepWithoutBaseline(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 4, 2, "r1")
	_, err := r.chat("s1", 4, 2, "r1", body(rs("rs_1", "AAAA"), fc(1)))
	wantCode(t, err, diag.TurnBoundaryUnavailable)
	ns := r.sent()
	if len(ns) != 1 || ns[0].Kind != "diagnostic" || ns[0].Code != diag.TurnBoundaryUnavailable {
		t.Fatalf("notices = %+v", ns)
	}
}

func TestRevocation(t *testing.T) {
	for _, c := range []struct {
		name   string
		revoke func(r *rig)
		req    PayloadRequest
	}{
		{"turn/end", func(r *rig) { r.endTurn("s1", 1) }, PayloadRequest{}},
		{"agent/disposed", func(r *rig) { r.Dispose("s1") }, PayloadRequest{}},
		{"cancellation", func(r *rig) { r.Cancelled("r1") }, PayloadRequest{}},
		{"another model", func(r *rig) {}, PayloadRequest{Model: "m2"}},
		{"another turn", func(r *rig) {}, PayloadRequest{Turn: 2}},
		{"another session", func(r *rig) {}, PayloadRequest{SessionID: "s2"}},
		{"the next turn admitted", func(r *rig) { r.endTurn("s1", 1); r.mustAdmit("s1", 2, 1, "r2") }, PayloadRequest{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.policy.set("s1", true)
			r.mustAdmit("s1", 1, 1, "r1")
			c.revoke(r)
			req := PayloadRequest{RequestID: "r1", SessionID: "s1", Turn: 1, Step: 1, Provider: Provider, Model: "m1", Purpose: "chat"}
			if c.req.Model != "" {
				req.Model = c.req.Model
			}
			if c.req.Turn != 0 {
				req.Turn = c.req.Turn
			}
			if c.req.SessionID != "" {
				req.SessionID = c.req.SessionID
			}
			_, err := r.Payload(context.Background(), req, body(rs("rs_1", "AAAA"), fc(1)))
			wantCode(t, err, diag.Revoked)
			// The mismatch ended the admission for good.
			_, err = r.chat("s1", 1, 1, "r1", body(user("x")))
			wantCode(t, err, diag.Revoked)
		})
	}
}

// turn/end while the first payload is being hashed: the call is REVOKED
// and leaves no baseline behind. The poll hook ends the turn at an exact
// chunk of the hashing, so the test does not race.
func TestTurnEndDuringHashing(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	polls := 0
	r.onPoll = func() {
		if polls++; polls == 5 {
			r.endTurn("s1", 1)
		}
	}
	big := strings.Repeat("A", 1<<20) // 16 hashing chunks
	_, err := r.chat("s1", 1, 1, "r1", body(rs("rs_1", big), fc(1)))
	wantCode(t, err, diag.Revoked)
	if polls < 5 || polls > 6 {
		t.Fatalf("%d polls: the revocation was not seen at the next chunk", polls)
	}
	a := r.bound("r1")
	if a.filter.HasBaseline() {
		t.Fatal("a revoked call left a baseline")
	}
}

// Cancellation during hashing revokes the admission and leaves no baseline.
func TestCancelDuringHashing(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	polls := 0
	r.onPoll = func() {
		if polls++; polls == 3 {
			cancel()
		}
	}
	_, err := r.Payload(ctx, PayloadRequest{RequestID: "r1", SessionID: "s1", Turn: 1, Step: 1, Provider: Provider, Model: "m1", Purpose: "chat"},
		body(rs("rs_1", strings.Repeat("A", 1<<20)), fc(1)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	r.onPoll = nil
	_, err = r.chat("s1", 1, 1, "r1", body(user("x")))
	wantCode(t, err, diag.Revoked)
}

// A second payload of the same turn while the first is being filtered is
// refused; the first still sets the baseline.
func TestOverlap(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	r.mustAdmit("s1", 1, 1, "r2")
	var once sync.Once
	var second error
	r.onPoll = func() {
		once.Do(func() { _, second = r.chat("s1", 1, 1, "r2", body(user("x"))) })
	}
	if _, err := r.chat("s1", 1, 1, "r1", body(rs("rs_1", "AAAA"), fc(1))); err != nil {
		t.Fatal(err)
	}
	wantCode(t, second, diag.ProcessingOverlap)
	if !r.bound("r1").filter.HasBaseline() {
		t.Fatal("the first call set no baseline")
	}
}

func TestNativePayloads(t *testing.T) {
	r := newRig(t)
	r.policy.set("on", true)
	r.mustAdmit("on", 1, 1, "r-on")
	r.mustAdmit("off", 1, 1, "r-off")
	reasoning := body(rs("rs_1", "AAAA"), fc(1))
	for _, c := range []struct {
		name string
		req  PayloadRequest
		body []byte
	}{
		{"another provider", PayloadRequest{RequestID: "r-on", SessionID: "on", Provider: "openai", Purpose: "chat"}, reasoning},
		{"a title", PayloadRequest{RequestID: "r-on", SessionID: "on", Provider: Provider, Purpose: "title"}, reasoning},
		{"a classifier", PayloadRequest{RequestID: "r-on", SessionID: "on", Provider: Provider, Purpose: "classifier"}, reasoning},
		{"chat completions", PayloadRequest{RequestID: "r-on", SessionID: "on", Provider: Provider, Purpose: "chat"}, []byte(`{"model":"m1","messages":[]}`)},
		{"unbound", PayloadRequest{RequestID: "nobody", SessionID: "on", Provider: Provider, Purpose: "chat"}, reasoning},
		{"policy off", PayloadRequest{RequestID: "r-off", SessionID: "off", Provider: Provider, Purpose: "chat"}, reasoning},
	} {
		c.req.Turn, c.req.Step, c.req.Model = 1, 1, "m1"
		res, err := r.Payload(context.Background(), c.req, c.body)
		if err != nil || res.Outcome != OutcomeNative || res.Output != nil {
			t.Errorf("%s: %s %v", c.name, res.Outcome, err)
		}
	}
	// Only chat payloads of admitted turns report native: the Chat
	// Completions body of the on turn and the off turn.
	ns := r.sent()
	if len(ns) != 2 || ns[0].AgentID != "on" || ns[1].AgentID != "off" {
		t.Fatalf("notices = %+v", ns)
	}
	for _, n := range ns {
		if n.Kind != "native" || n.Outcome != OutcomeNative || n.TextKey != "notice.native" {
			t.Errorf("notice = %+v", n)
		}
	}
}

// Filter failures are named, leave no baseline, and the turn goes on.
func TestFilterFailureLeavesNoBaseline(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	bad := body(`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"AAAA","status":"in_progress"}`)
	_, err := r.chat("s1", 1, 1, "r1", bad)
	wantCode(t, err, diag.UnsupportedReasoning)
	if r.bound("r1").filter.HasBaseline() {
		t.Fatal("a failed call left a baseline")
	}
	if res, err := r.chat("s1", 1, 1, "r1", body(rs("rs_1", "AAAA"), fc(1))); err != nil || res.Outcome != OutcomeFiltered {
		t.Fatalf("after the failure: %v %v", res.Outcome, err)
	}
}

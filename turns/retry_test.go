package turns

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
)

// retryReq is a chat payload of turn 1 that retries request of.
func retryReq(rid, of string) PayloadRequest {
	return PayloadRequest{RequestID: rid, SessionID: "s1", Turn: 1, Step: 1, Provider: Provider, Model: "m1", Purpose: "chat", RetryOf: of}
}

// After a 408, a retry gets exactly the recorded result — the very bytes,
// digest and counts — while the turn is current.
func TestExactRetryAfter408(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	b := body(user("q"), rs("rs_1", "AAAA"), fc(1), out(1))
	first, err := r.chat("s1", 1, 1, "r1", b)
	if err != nil || first.Outcome != OutcomeFiltered {
		t.Fatalf("first: %v %v", first.Outcome, err)
	}
	r.Response("r1", 408, "")
	// The retry was not announced with agent/request: it joins r1's turn.
	again, err := r.Payload(context.Background(), retryReq("r1-retry", "r1"), b)
	if err != nil {
		t.Fatal(err)
	}
	if again.Outcome != OutcomeFiltered || &again.Output[0] != &first.Output[0] || again.SHA256 != first.SHA256 || again.Omitted != first.Omitted {
		t.Fatalf("retry = %+v, want the recorded result", again)
	}
	// A retry of the retry after another 408 gets the same bytes.
	r.Response("r1-retry", 408, "")
	third, err := r.Payload(context.Background(), retryReq("r1-retry2", "r1-retry"), b)
	if err != nil || !bytes.Equal(third.Output, first.Output) || &third.Output[0] != &first.Output[0] {
		t.Fatalf("second retry: %v", err)
	}
}

func TestRetryWithoutRecord(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(r *rig)
		code  string
	}{
		// No 408 came: the payload is filtered afresh (same baseline, so
		// the same bytes, but not the recorded copy).
		{"no 408", func(r *rig) {}, ""},
		{"a 429", func(r *rig) { r.Response("r1", 429, "rate limited") }, ""},
		{"past the 60 s retention", func(r *rig) { r.Response("r1", 408, ""); r.clock.add(61 * time.Second) }, ""},
		{"the turn ended", func(r *rig) { r.Response("r1", 408, ""); r.endTurn("s1", 1) }, diag.Revoked},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.policy.set("s1", true)
			r.mustAdmit("s1", 1, 1, "r1")
			b := body(user("q"), rs("rs_1", "AAAA"), fc(1), out(1))
			first, err := r.chat("s1", 1, 1, "r1", b)
			if err != nil {
				t.Fatal(err)
			}
			c.setup(r)
			r.mustAdmitOrEnded("s1", 1, 1, "r2")
			again, err := r.Payload(context.Background(), retryReq("r2", "r1"), b)
			if c.code != "" {
				wantCode(t, err, c.code)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if &again.Output[0] == &first.Output[0] {
				t.Fatal("the recorded bytes were reused without a current 408")
			}
			if !bytes.Equal(again.Output, first.Output) {
				t.Fatal("refiltering changed the bytes")
			}
		})
	}
}

// mustAdmitOrEnded binds rid to the turn unless the turn already ended.
func (r *rig) mustAdmitOrEnded(sid string, turn, step int64, rid string) {
	if _, err := r.admit(sid, turn, step, rid); err != nil && diag.CodeOf(err) != diag.TurnInvalid {
		r.t.Fatal(err)
	}
}

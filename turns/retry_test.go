package turns

import (
	"bytes"
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/continuity-dev/continuity/diag"
)

// retryReq is a chat payload of turn 1 that retries request of.
func retryReq(rid, of string) PayloadRequest {
	return PayloadRequest{RequestID: rid, SessionID: "s1", Turn: 1, Step: 1, Provider: Provider, Model: "m1", Purpose: "chat", RetryOf: of}
}

// filteredR1 is a rig whose request r1 (turn 1, step 1) was filtered, with
// its payload and result.
func filteredR1(t *testing.T) (*rig, []byte, PayloadResult) {
	t.Helper()
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	b := body(user("q"), rs("rs_1", "AAAA"), fc(1), out(1))
	first, err := r.chat("s1", 1, 1, "r1", b)
	if err != nil || first.Outcome != OutcomeFiltered {
		t.Fatalf("first: %v %v", first.Outcome, err)
	}
	return r, b, first
}

// After a 408, a retry gets exactly the recorded result — the very bytes,
// digest and counts — while the turn is current.
func TestExactRetryAfter408(t *testing.T) {
	r, b, first := filteredR1(t)
	r.Response("r1", 408, "")
	// The retry was not announced with agent/request: it joins r1's turn.
	again, err := r.Payload(context.Background(), retryReq("r1-retry", "r1"), b)
	if err != nil {
		t.Fatal(err)
	}
	if again.Outcome != OutcomeFiltered || aliases(again.Output, b) || !bytes.Equal(again.Bytes(), first.Bytes()) ||
		again.SHA256 != first.SHA256 || again.Omitted != first.Omitted {
		t.Fatalf("retry = %+v, want the recorded result", again)
	}
	// A retry of the retry after another 408 gets the same record.
	r.Response("r1-retry", 408, "")
	third, err := r.Payload(context.Background(), retryReq("r1-retry2", "r1-retry"), b)
	if err != nil || len(third.Output) != 1 || &third.Output[0][0] != &again.Output[0][0] {
		t.Fatalf("second retry: %v", err)
	}
}

// TestRetryRecordOutlivesThePayload reuses the payload's memory after the
// first result is detached (as the plugin reuses a frame buffer once the
// reply is written): the retry still gets the original bytes.
func TestRetryRecordOutlivesThePayload(t *testing.T) {
	r, b, first := filteredR1(t)
	want := first.Bytes()
	first.Detach()
	copy(b, bytes.Repeat([]byte{'#'}, len(b)))
	r.Response("r1", 408, "")
	again, err := r.Payload(context.Background(), retryReq("r1-retry", "r1"), body(user("q"), rs("rs_1", "AAAA"), fc(1), out(1)))
	if err != nil || !bytes.Equal(again.Bytes(), want) || again.SHA256 != first.SHA256 {
		t.Fatalf("retry after the payload was reused: %v %q", err, again.Bytes())
	}
}

// aliases reports whether pieces are slices of payload (a fresh filtering)
// rather than of a retry record.
func aliases(pieces [][]byte, payload []byte) bool {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(payload)))
	for _, p := range pieces {
		at := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
		if len(p) > 0 && at >= lo && at < lo+uintptr(len(payload)) {
			return true
		}
	}
	return false
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
			if !aliases(again.Output, b) {
				t.Fatal("the recorded bytes were reused without a current 408")
			}
			if !bytes.Equal(again.Bytes(), first.Bytes()) {
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

// The retry records and their bytes go with their turn: once it ends,
// nothing is held for it (the bytes could never be served again), and a
// detach that comes after the end does not copy them at all.
func TestRetryRecordsGoWithTheirTurn(t *testing.T) {
	r, _, first := filteredR1(t)
	r.Response("r1", 408, "")
	if got := r.retry408.bytes; got != len(first.Bytes()) {
		t.Fatalf("held %d bytes for r1, want %d", got, len(first.Bytes()))
	}
	k := r.retry408.byID["r1"].out
	r.endTurn("s1", 1)
	first.Detach()
	if len(r.retry408.byID) != 0 || r.retry408.bytes != 0 {
		t.Fatalf("after the turn ended: %d records, %d bytes held", len(r.retry408.byID), r.retry408.bytes)
	}
	if k.own != nil || !k.dropped {
		t.Fatal("a detach after the turn ended copied the bytes")
	}
}

// A retry's result borrows the record's buffer until its Detach: the turn
// may end meanwhile (the host's next agent/request) and the bytes being
// written stay intact; only after Detach does the buffer go back.
func TestRetryResultHoldsItsBytesUntilDetach(t *testing.T) {
	r, b, first := filteredR1(t)
	want := first.Bytes()
	first.Detach()
	r.Response("r1", 408, "")
	again, err := r.Payload(context.Background(), retryReq("r1-retry", "r1"), b)
	if err != nil || again.Outcome != OutcomeFiltered {
		t.Fatalf("retry: %v %v", again.Outcome, err)
	}
	k := r.retry408.byID["r1"].out
	r.endTurn("s1", 1)
	if len(r.retry408.byID) != 0 || k.dropped || !bytes.Equal(again.Bytes(), want) {
		t.Fatalf("the retry's bytes were let go while its reply was written (dropped %v)", k.dropped)
	}
	again.Detach()
	again.Detach() // idempotent: one reference, released once
	if !k.dropped || r.retry408.bytes != 0 || k.readers != 0 {
		t.Fatalf("after Detach: dropped %v, %d bytes held, %d readers", k.dropped, r.retry408.bytes, k.readers)
	}
}

// A record past the 60 s retention can never be served, so the next
// filtered request of the turn drops it and its bytes (and their share of
// the budget) instead of holding them until the turn ends; records still
// within the retention stay and are served.
func TestRetryRecordsPastRetentionGoWithinTheTurn(t *testing.T) {
	r, b, first := filteredR1(t)
	first.Detach()
	k1 := r.retry408.byID["r1"].out
	step := func(n int64, rid string) PayloadResult {
		t.Helper()
		r.mustAdmit("s1", 1, n, rid)
		res, err := r.chat("s1", 1, n, rid, b)
		if err != nil || res.Outcome != OutcomeFiltered {
			t.Fatalf("%s: %v %v", rid, res.Outcome, err)
		}
		res.Detach()
		return res
	}
	r.clock.add(30 * time.Second)
	second := step(2, "r2")
	if len(r.retry408.byID) != 2 || k1.dropped {
		t.Fatalf("at 30 s: %d records, r1 dropped %v; want both kept", len(r.retry408.byID), k1.dropped)
	}
	r.clock.add(31 * time.Second)
	third := step(3, "r3")
	if r.retry408.byID["r1"] != nil || !k1.dropped || r.retry408.bytes != len(second.Bytes())+len(third.Bytes()) {
		t.Fatalf("at 61 s: r1 kept %v (dropped %v), %d bytes held; want r1 gone, %d bytes",
			r.retry408.byID["r1"] != nil, k1.dropped, r.retry408.bytes, len(second.Bytes())+len(third.Bytes()))
	}
	r.Response("r2", 408, "")
	again, err := r.Payload(context.Background(), PayloadRequest{RequestID: "r2-retry", SessionID: "s1", Turn: 1, Step: 3,
		Provider: Provider, Model: "m1", Purpose: "chat", RetryOf: "r2"}, b)
	if err != nil || again.Outcome != OutcomeFiltered || !bytes.Equal(again.Bytes(), second.Bytes()) {
		t.Fatalf("a retry of r2 within its retention: %v %v", again.Outcome, err)
	}
	again.Detach()
}

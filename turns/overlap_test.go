package turns

import (
	"sync"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// Issue 18 #5: a second step-1 payload of the turn that comes once the
// first has set the baseline is not decided against it (its reasoning would
// come back unchanged, historical ciphertext and all): it overlaps the first.
// The request that set the baseline may send its step-1 payload again.
func TestSecondStepOneAfterBaselineOverlaps(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	r.mustAdmit("s1", 1, 1, "r2")
	history := body(rs("rs_1", "AAAA"), fc(1))
	if res, err := r.chat("s1", 1, 1, "r1", history); err != nil || res.Outcome != OutcomeFiltered {
		t.Fatalf("first: %+v, %v", res, err)
	}
	_, err := r.chat("s1", 1, 1, "r2", history)
	wantCode(t, err, diag.ProcessingOverlap)
	if res, err := r.chat("s1", 1, 1, "r1", history); err != nil || res.Outcome != OutcomeFiltered {
		t.Fatalf("the first request again: %+v, %v", res, err)
	}
}

// A later step whose turn's step 1 is still being filtered overlaps it; it
// does not lack a boundary (TURN_BOUNDARY_UNAVAILABLE is for a turn whose
// first step this process never saw).
func TestLaterStepDuringStepOneOverlaps(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	r.mustAdmit("s1", 1, 2, "r2")
	var once sync.Once
	var during error
	r.onPoll = func() {
		once.Do(func() { _, during = r.chat("s1", 1, 2, "r2", body(rs("rs_1", "AAAA"), fc(1))) })
	}
	if _, err := r.chat("s1", 1, 1, "r1", body(rs("rs_1", "AAAA"), fc(1))); err != nil {
		t.Fatal(err)
	}
	wantCode(t, during, diag.ProcessingOverlap)
	r.onPoll = nil
	if _, err := r.chat("s1", 1, 2, "r2", body(rs("rs_1", "AAAA"), fc(1), rs("rs_2", "BBBB"))); err != nil {
		t.Fatalf("step 2 after step 1: %v", err)
	}
}

// A later step that reaches the plugin before the payload of its turn's
// step 1 (two handlers racing) overlaps it too; once step 1 has failed,
// with no baseline left, the boundary is what is missing.
func TestLaterStepBeforeStepOnePayload(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 1, "r1")
	r.mustAdmit("s1", 1, 2, "r2")
	_, err := r.chat("s1", 1, 2, "r2", body(user("q")))
	wantCode(t, err, diag.ProcessingOverlap)
	if _, err := r.chat("s1", 1, 1, "r1", []byte(`{"model":"m1","input":[{"type":"reasoning"}]}`)); err == nil {
		t.Fatal("a reasoning item without content was filtered")
	}
	_, err = r.chat("s1", 1, 2, "r2", body(user("q")))
	wantCode(t, err, diag.TurnBoundaryUnavailable)
}

// Step 2 of a turn this process saw no step 1 of is still
// TURN_BOUNDARY_UNAVAILABLE.
func TestColdLaterStepLacksBoundary(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.mustAdmit("s1", 1, 2, "r2")
	_, err := r.chat("s1", 1, 2, "r2", body(user("q")))
	wantCode(t, err, diag.TurnBoundaryUnavailable)
}

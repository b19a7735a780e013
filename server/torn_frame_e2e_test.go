package server_test

import (
	"testing"

	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// Issue 28 #11: a DSH host that dies mid-write leaves a step-1 llm/payload
// frame that is not JSON; the plugin answers it -32700 with a null id. The
// turn's later steps used to get PROCESSING_OVERLAP ("the first step of
// this turn has not been filtered yet") though nothing was processing. Now
// they get TURN_BOUNDARY_UNAVAILABLE, as seed 003 and the DSH Copilot
// plugin's filter answer, no baseline is left behind, and a retry of step 1
// is filtered, after which step 2 is too.
func TestTornStepOneFrameLeavesNoOverlap(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	s := dshHOpen(t, h, "sess-torn", false)
	s.prompt(t, 1, "Fix the failing login test.")
	if a, rerr := s.request(t, 1, 1, "req_1", "acct-A"); rerr != nil || a == nil || !a.Enabled {
		t.Fatalf("step 1 admission: %+v %v", a, rerr)
	}
	body := payloadgen.Generate(payloadgen.Spec{Seed: 28, Size: 32 << 10, Reasoning: 3, ToolOutputBytes: 128}).Body
	whole := hostileChatParams(t, "sess-torn", "req_1", 1, body)
	torn := append([]byte(`{"jsonrpc":"2.0","id":"req_payload_1","method":"llm/payload","params":`), whole[:len(whole)/2]...)
	if err := h.SendLine(torn); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := h.NextOrphan(ctxT(t))
		if err != nil {
			t.Fatalf("no answer to the torn frame: %v", err)
		}
		if m.Error != nil && m.Error.Code == -32700 && string(m.ID) == "null" {
			break
		}
	}
	if _, rerr := s.request(t, 1, 2, "req_2", "acct-A"); rerr != nil {
		t.Fatalf("step 2 admission: %v", rerr)
	}
	_, rerr := turnsXChat(t, h, "sess-torn", 1, 2, "req_2", body)
	turnsXWantCode(t, "step 2 after a torn step 1", rerr, "TURN_BOUNDARY_UNAVAILABLE")

	// The retry of step 1 sets the baseline; step 2 is then filtered
	// against it (the reasoning of step 1's history is omitted).
	res, rerr := turnsXChat(t, h, "sess-torn", 1, 1, "req_1", body)
	if rerr != nil || res.Outcome != "filtered" || res.Omitted.Items != 3 {
		t.Fatalf("step 1 retried: %s %+v %v", res.Outcome, res.Omitted, rerr)
	}
	res, rerr = turnsXChat(t, h, "sess-torn", 1, 2, "req_2", body)
	if rerr != nil || res.Outcome != "filtered" || res.Omitted.Items != 3 {
		t.Fatalf("step 2 after the retry: %s %+v %v", res.Outcome, res.Omitted, rerr)
	}
}

// Without a lost frame, a later step that arrives while step 1 is pending
// still overlaps it: only a frame the plugin could not read changes that.
func TestPendingStepOneWithoutLostFrameStillOverlaps(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	s := dshHOpen(t, h, "sess-pending", false)
	s.prompt(t, 1, "Fix the failing login test.")
	for step, rid := range []string{"req_1", "req_2"} {
		if _, rerr := s.request(t, 1, step+1, rid, "acct-A"); rerr != nil {
			t.Fatal(rerr)
		}
	}
	_, rerr := turnsXChat(t, h, "sess-pending", 1, 2, "req_2", []byte(`{"model":"gpt-5.4","input":[]}`))
	turnsXWantCode(t, "step 2 before step 1", rerr, "PROCESSING_OVERLAP")
}

// A payload that is JSON but not an object is INVALID_PAYLOAD (the DSH
// Copilot plugin's filter's code), not -32602, and leaves the turn able to
// filter its real step 1.
func TestPayloadNotAnObjectIsInvalidPayload(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	s := dshHOpen(t, h, "sess-array", false)
	s.prompt(t, 1, "Fix the failing login test.")
	if _, rerr := s.request(t, 1, 1, "req_1", "acct-A"); rerr != nil {
		t.Fatal(rerr)
	}
	for _, bad := range []string{`[1]`, `"body"`, `42`, `null`} {
		_, rerr, err := h.CallRaw(ctxT(t), "llm/payload", hostileChatParams(t, "sess-array", "req_1", 1, []byte(bad)))
		if err != nil {
			t.Fatal(err)
		}
		turnsXWantCode(t, "payload "+bad, rerr, "INVALID_PAYLOAD")
	}
	body := payloadgen.Generate(payloadgen.Spec{Seed: 29, Size: 16 << 10, Reasoning: 2}).Body
	if res, rerr := turnsXChat(t, h, "sess-array", 1, 1, "req_1", body); rerr != nil || res.Omitted.Items != 2 {
		t.Fatalf("step 1 after refused bodies: %+v %v", res, rerr)
	}
}

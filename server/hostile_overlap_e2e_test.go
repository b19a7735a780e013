package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// hostileChatParams is llm/payload params for a chat step of turn 1.
func hostileChatParams(t *testing.T, sid, rid string, step int, body []byte) []byte {
	t.Helper()
	head, err := json.Marshal(host.PayloadParams{RequestID: rid, SessionID: sid, Turn: 1, Step: step,
		Provider: "github-copilot-preview", Model: turnsXModel, Purpose: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	params := append(head[:len(head)-1:len(head)-1], `,"payload":`...)
	return append(append(params, body...), '}')
}

// hostileSendAll writes several llm/payload requests in one write, so that
// the read loop dispatches them back to back, and returns their answers.
func hostileSendAll(t *testing.T, h *host.Host, params ...[]byte) []*host.RPCError {
	t.Helper()
	var pending []*host.Pending
	for _, p := range params {
		pe, err := h.SendRawParams("llm/payload", p)
		if err != nil {
			t.Fatal(err)
		}
		pending = append(pending, pe)
	}
	out := make([]*host.RPCError, len(pending))
	for i, p := range pending {
		_, rerr, err := p.Wait(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = rerr
	}
	return out
}

// Issue 18 #5: two step-1 payloads of one turn in flight at once. Whichever
// came second used to be decided against the baseline the first had just
// set and came back unchanged, historical ciphertext and all. Now exactly
// one is filtered and the other is PROCESSING_OVERLAP, however they meet.
func TestHostileTwoStepOnePayloadsOverlap(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	body := payloadgen.Generate(payloadgen.ReasoningHeavy(1<<20, 64)).Body
	for trial := range 5 {
		sid := fmt.Sprintf("twin-%d", trial)
		turnsXSession(t, h, sid, true)
		for _, rid := range []string{"a-" + sid, "b-" + sid} {
			if _, rerr := turnsXAdmit(t, h, sid, 1, 1, rid, "", turnsXModel); rerr != nil {
				t.Fatal(rerr)
			}
		}
		answers := hostileSendAll(t, h, hostileChatParams(t, sid, "a-"+sid, 1, body), hostileChatParams(t, sid, "b-"+sid, 1, body))
		overlaps := 0
		for _, rerr := range answers {
			switch {
			case rerr == nil:
			case dataCode(rerr) == "COPILOT_CONTINUATION_PROCESSING_OVERLAP":
				overlaps++
			default:
				t.Fatalf("trial %d: %v (%s)", trial, rerr, dataCode(rerr))
			}
		}
		if overlaps != 1 {
			t.Fatalf("trial %d: %d of 2 payloads overlapped, want exactly 1", trial, overlaps)
		}
	}
}

// A step-2 payload sent right behind a large step 1 of its turn reaches
// the plugin while step 1 is still being filtered (or before its handler
// has started): that is PROCESSING_OVERLAP, not TURN_BOUNDARY_UNAVAILABLE,
// which says the plugin never saw the turn's first step.
func TestHostileLaterStepDuringStepOneOverlaps(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	big := payloadgen.Generate(payloadgen.ReasoningHeavy(16<<20, 256)).Body
	small := []byte(`{"model":"gpt-5.4","input":[{"role":"user","content":"q"}]}`)
	turnsXSession(t, h, "s", true)
	for step, rid := range []string{"r1", "r2"} {
		if _, rerr := turnsXAdmit(t, h, "s", 1, step+1, rid, "", turnsXModel); rerr != nil {
			t.Fatal(rerr)
		}
	}
	answers := hostileSendAll(t, h, hostileChatParams(t, "s", "r1", 1, big), hostileChatParams(t, "s", "r2", 2, small))
	if answers[0] != nil {
		t.Fatalf("step 1: %v", answers[0])
	}
	if rerr := answers[1]; rerr == nil {
		t.Log("step 2 came after step 1 was filtered; nothing overlapped")
	} else if dataCode(rerr) != "COPILOT_CONTINUATION_PROCESSING_OVERLAP" {
		t.Fatalf("step 2 during step 1: %v (%s)", rerr, dataCode(rerr))
	}
	// Once step 1 is done, step 2 is filtered against its baseline.
	if _, rerr := turnsXChat(t, h, "s", 1, 2, "r2", small); rerr != nil {
		t.Fatalf("step 2 after step 1: %v", rerr)
	}
}

// Issue 18 #7 (remote/invoke): a 64 MiB member in Remote args peaked at
// 406 MiB, decoded whole by the params check, again into the handler's
// struct and again by the Remote's own check. Now the args are a view of
// the frame and the strict check does not copy strings: the peak stays
// within 3× the frame.
func TestHostileLargeRemoteArgsAreNotDecodedWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("a 64 MiB frame")
	}
	skipUnderRace(t, "the peak RSS of a 64 MiB Remote member")
	h := initialized(t, host.Config{}, host.AllCapabilities())
	const member = 64 << 20
	frame := bytes.Repeat([]byte("x"), member)
	args := append(append([]byte(`{"agentId":"s","junk":"`), frame...), `"}`...)
	base, err := h.PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	sampler := h.SampleRSS(5 * time.Millisecond)
	start := time.Now()
	hostileArgsInvalid(t, h, "get", string(args), "/: additionalProperties")
	st := sampler.Stop()
	peak, err := h.PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	peak = max(peak, st.MaxHWM, st.MaxRSS)
	t.Logf("peak RSS %d MiB (%d MiB before) for a %d MiB member, answered in %v", peak>>20, base>>20, member>>20, time.Since(start))
	if peak > 3*member {
		t.Fatalf("peak RSS %d MiB is more than 3× the %d MiB member", peak>>20, member>>20)
	}
}

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

// Revocation while a large payload is being hashed, through the real
// binary. Timing is not asserted: the interrupting message is written right
// behind the payload frame (for turn/end, in the same write), so the read
// loop applies it while the handler is still scanning or hashing 64 MiB
// of ciphertext. If the plugin nevertheless finished first, the test says
// so, checks the revocation still took effect, and tries again with more
// work in front of the hashing; after the last attempt it skips with a
// report instead of asserting a race. The exact point inside the hashing is
// covered deterministically by turns.TestTurnEndDuringHashing.

// turnsXHashAttempts are the payloads tried in turn: 64 MiB of reasoning,
// then the same behind 64 MiB of ordinary tool output.
var turnsXHashAttempts = []int{0, 64 << 20}

// turnsXHeavy is a reasoning-heavy body of about 64 MiB (within the
// 64 Mi-code-unit work limit) with pad bytes of tool output in front.
func turnsXHeavy(pad int) []byte {
	body := payloadgen.Generate(payloadgen.ReasoningHeavy(62<<20, 512)).Body
	if pad == 0 {
		return body
	}
	at := bytes.Index(body, []byte(`"input":[`)) + len(`"input":[`)
	item := `{"type":"function_call_output","call_id":"call_pad","output":"` + string(bytes.Repeat([]byte("x"), pad)) + `"},`
	out := make([]byte, 0, len(body)+len(item))
	return append(append(append(out, body[:at]...), item...), body[at:]...)
}

// turnsXPayloadParams encodes llm/payload params with body spliced in.
func turnsXPayloadParams(t *testing.T, sid, rid string, body []byte) []byte {
	t.Helper()
	head, err := json.Marshal(host.PayloadParams{RequestID: rid, SessionID: sid, Turn: 1, Step: 1,
		Provider: "github-copilot-preview", Model: turnsXModel, Purpose: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	params := append(head[:len(head)-1:len(head)-1], `,"payload":`...)
	return append(append(params, body...), '}')
}

// turnsXRace runs one attempt per payload size: start sends the payload
// (and the interruption) for a fresh session and returns the pending
// answer. It passes once an attempt's answer is want; an attempt that
// finished first must still leave the turn revoked.
func turnsXRace(t *testing.T, want int, wantCode string, start func(h *host.Host, sid string, body []byte) *host.Pending) {
	if testing.Short() {
		t.Skip("64 MiB payloads")
	}
	h := initialized(t, host.Config{}, host.AllCapabilities())
	for i, pad := range turnsXHashAttempts {
		sid := fmt.Sprintf("race-%d", i)
		turnsXSession(t, h, sid, true)
		if _, rerr := turnsXAdmit(t, h, sid, 1, 1, "r-"+sid, "", turnsXModel); rerr != nil {
			t.Fatal(rerr)
		}
		p := start(h, sid, turnsXHeavy(pad))
		_, rerr, err := p.Wait(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		// Either way the turn is revoked now.
		_, late := turnsXChat(t, h, sid, 1, 1, "r-"+sid, []byte(`{"model":"gpt-5.4","input":[]}`))
		turnsXWantCode(t, "the turn's later payload", late, "REVOKED")
		if rerr != nil {
			if rerr.Code != want || wantCode != "" && dataCode(rerr) != wantCode {
				t.Fatalf("attempt %d: %v (data.code %q)", i, rerr, dataCode(rerr))
			}
			return
		}
		t.Logf("attempt %d: the payload was filtered before the interruption was applied", i)
	}
	t.Skipf("the plugin finished hashing before the interruption on all %d attempts; only the later revocation was checked", len(turnsXHashAttempts))
}

// turn/end while the turn's first payload is being hashed: REVOKED, and
// nothing of the turn can be filtered afterwards.
func TestTurnsTurnEndDuringHashing(t *testing.T) {
	turnsXRace(t, host.CodeDomain, "COPILOT_CONTINUATION_REVOKED", func(h *host.Host, sid string, body []byte) *host.Pending {
		// The turn/end notification rides in the same write as the
		// payload: SendRawParams closes the request with "}\n", so the
		// params end the request and open the notification, whose own
		// closing brace SendRawParams then supplies.
		end, err := json.Marshal(map[string]any{"sessionId": sid, "event": map[string]any{"type": "turn/end", "seq": 1000,
			"time": time.Now().UnixMilli(), "data": map[string]any{"turn": 1, "reason": "aborted"}}})
		if err != nil {
			t.Fatal(err)
		}
		params := turnsXPayloadParams(t, sid, "r-"+sid, body)
		params = append(params, "}\n"+`{"jsonrpc":"2.0","method":"session/event","params":`...)
		params = append(params, end...)
		p, err := h.SendRawParams("llm/payload", params)
		if err != nil {
			t.Fatal(err)
		}
		return p
	})
}

// $/cancelRequest for the turn's payload while it is being hashed: the
// request is answered -32800 and the turn is revoked.
func TestTurnsCancelDuringHashing(t *testing.T) {
	turnsXRace(t, host.CodeCancelled, "", func(h *host.Host, sid string, body []byte) *host.Pending {
		p, err := h.SendRawParams("llm/payload", turnsXPayloadParams(t, sid, "r-"+sid, body))
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Cancel(p.ID); err != nil {
			t.Fatal(err)
		}
		return p
	})
}

package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
)

// freshSession announces a session born after activation (so the
// creation-time default, on, applies) and admits turn 1.
func freshSession(t *testing.T, h *host.Host, sessionID string) {
	t.Helper()
	born := time.Now().Add(time.Hour).UnixMilli()
	hdr := &hostapi.SessionHeader{CreatedAt: &born, IsSeeded: false}
	h.SetAgent(sessionID, hdr, "idle")
	if _, err := h.SessionEvent(sessionID, host.Ev("session/created", map[string]any{}), hdr); err != nil {
		t.Fatal(err)
	}
}

func admit(t *testing.T, h *host.Host, sessionID string, turn, step int, requestID string) host.AgentRequestResult {
	t.Helper()
	res, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: sessionID, Turn: turn, Step: step, RequestID: requestID,
		Config: host.LLMConfig{Provider: "github-copilot-preview", Model: "gpt-5.4"}})
	if err != nil {
		t.Fatalf("agent/request: %v", err)
	}
	return res
}

func TestLargePayloadBytesSurviveTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB payloads")
	}
	skipUnderRace(t, "the time to filter 64 MiB payloads")
	h := initialized(t, host.Config{}, host.AllCapabilities())
	freshSession(t, h, "s1")
	if res := admit(t, h, "s1", 1, 1, "r1"); res.Admission == nil || !res.Admission.Enabled {
		t.Fatalf("admission = %+v", res.Admission)
	}

	// Nothing to omit: the plugin takes part, changes nothing, and its
	// digest is the digest of exactly the bytes the host sent.
	ordinary := payloadgen.Generate(payloadgen.Ordinary(64 << 20)).Body
	res, err := h.Payload(ctxT(t), host.PayloadParams{RequestID: "r1", SessionID: "s1", Turn: 1, Step: 1,
		Provider: "github-copilot-preview", Model: "gpt-5.4", Purpose: "chat", Payload: ordinary})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(ordinary)
	if res.Outcome != "unchanged" || res.Payload != nil || res.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("ordinary payload: outcome %s, sha %s", res.Outcome, res.SHA256)
	}

	// One historical reasoning item in front of 64 MiB of ordinary items:
	// the bytes that come back are the host's bytes with exactly that item
	// (and its separator) cut out. Odd spacing and escapes stay as sent.
	reasoning := `{"type":"reasoning","id":"rs_old","summary":[{"type":"summary_text","text":"earlier \u00e9"}],"encrypted_content":"gAAAAABold\/cipher=="}`
	head := []byte("{ \"model\" : \"gpt-5.4\",\t \"input\" : [ " + reasoning + " ,\t")
	rest := ordinary[bytes.Index(ordinary, []byte(`"input":[`))+len(`"input":[`):]
	body := append(append([]byte{}, head...), rest...)
	want := append([]byte("{ \"model\" : \"gpt-5.4\",\t \"input\" : [ "), rest...)

	admit(t, h, "s1", 1, 2, "r2")
	res, err = h.Payload(ctxT(t), host.PayloadParams{RequestID: "r2", SessionID: "s1", Turn: 1, Step: 2,
		Provider: "github-copilot-preview", Model: "gpt-5.4", Purpose: "chat", Payload: body})
	if err != nil {
		t.Fatal(err)
	}
	// rs_old was not in the turn's baseline (taken at step 1), so it is
	// this turn's own reasoning and is kept: outcome unchanged.
	if res.Outcome != "unchanged" {
		t.Fatalf("a reasoning item generated during the turn must be kept; got %s", res.Outcome)
	}

	// The next turn treats it as history and omits it.
	if _, err := h.SessionEvent("s1", host.Ev("turn/end", map[string]any{"turn": 1, "reason": map[string]any{"kind": "completed"}}), nil); err != nil {
		t.Fatal(err)
	}
	admit(t, h, "s1", 2, 1, "r3")
	res, err = h.Payload(ctxT(t), host.PayloadParams{RequestID: "r3", SessionID: "s1", Turn: 2, Step: 1,
		Provider: "github-copilot-preview", Model: "gpt-5.4", Purpose: "chat", Payload: body})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != "filtered" || res.Omitted.Items != 1 {
		t.Fatalf("turn 2: outcome %s omitted %+v", res.Outcome, res.Omitted)
	}
	if !bytes.Equal(res.Payload, want) {
		i := 0
		for i < len(want) && i < len(res.Payload) && want[i] == res.Payload[i] {
			i++
		}
		t.Fatalf("filtered bytes differ at offset %d (got %d bytes, want %d)", i, len(res.Payload), len(want))
	}
	sum = sha256.Sum256(want)
	if res.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("sha256 %s is not the digest of the final bytes", res.SHA256)
	}
	if !json.Valid(res.Payload) {
		t.Fatal("filtered payload is not valid JSON")
	}
}

func TestCancellingASlowRequest(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	h.SetAgent("s1", nil, "idle")
	release := h.Hold("agents/get")
	defer release()
	p, err := h.Send("remote/invoke", map[string]any{"namespace": "continuity", "method": "accountSwitch",
		"args": map[string]any{"agentId": "s1", "accountId": "acct-B"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.WaitHeld(ctxT(t), "agents/get", 1); err != nil {
		t.Fatal(err)
	}
	if err := h.Cancel(p.ID); err != nil {
		t.Fatal(err)
	}
	_, rerr, err := p.Wait(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if rerr == nil || rerr.Code != -32800 {
		t.Fatalf("got %v, want -32800", rerr)
	}
	// The plugin passed the cancellation on to the host call it was
	// waiting for.
	if _, err := h.WaitEvent(ctxT(t), "$/cancelRequest", nil); err != nil {
		t.Fatalf("no $/cancelRequest reached the host: %v", err)
	}
}

func TestNativeForOtherProvidersAndPurposes(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	freshSession(t, h, "s1")
	body := []byte(`{"model":"m","input":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA"}]}`)
	for _, c := range []struct{ provider, purpose string }{
		{"openai", "chat"}, {"github-copilot-preview", "title"}, {"github-copilot-preview", "classifier"},
	} {
		res, err := h.Payload(ctxT(t), host.PayloadParams{RequestID: "x", SessionID: "s1", Turn: 1, Step: 1,
			Provider: c.provider, Model: "m", Purpose: c.purpose, Payload: body})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != "native" || res.Payload != nil {
			t.Fatalf("%s/%s: %s", c.provider, c.purpose, res.Outcome)
		}
	}
	// Unbound: a Copilot chat payload that no agent/request admitted.
	res, err := h.Payload(ctxT(t), host.PayloadParams{RequestID: "unbound", SessionID: "s1", Turn: 1, Step: 1,
		Provider: "github-copilot-preview", Model: "m", Purpose: "chat", Payload: body})
	if err != nil || res.Outcome != "native" {
		t.Fatalf("unbound: %v %v", res.Outcome, err)
	}
	if strings.Contains(string(h.StderrTail()), "gAAAA") {
		t.Fatal("ciphertext reached the log")
	}
}

package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/host"
)

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

type digestResult struct {
	Outcome string `json:"outcome"`
	Omit    []int  `json:"omit"`
	Strip   []int  `json:"strip"`
	Omitted struct {
		Items, CodeUnits, StrippedIDs int
	} `json:"omitted"`
}

func payloadDigest(t *testing.T, h *host.Host, params map[string]any) (digestResult, *host.RPCError) {
	t.Helper()
	raw, rerr, err := h.Call(ctxT(t), "llm/payloadDigest", params)
	if err != nil {
		t.Fatal(err)
	}
	var out digestResult
	if rerr == nil {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
	}
	return out, rerr
}

// TestPayloadDigestDecidesLikeTheBytes: the digest form omits the turn's
// baseline reasoning and strips the paired id after it, keeps the turn's
// own reasoning on the next step, and refuses what the bytes form refuses.
func TestPayloadDigestDecidesLikeTheBytes(t *testing.T) {
	h := startHost(t, host.Config{})
	if _, rerr := initializeWith(t, h, []string{"github-copilot"}); rerr != nil {
		t.Fatal(rerr)
	}
	freshSession(t, h, "pi")
	step := func(n int, rid string, items []map[string]any) (digestResult, *host.RPCError) {
		if _, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: "pi", Turn: 1, Step: n, RequestID: rid,
			Config: host.LLMConfig{Provider: "github-copilot", Model: "gpt-5.4"}}); err != nil {
			t.Fatal(err)
		}
		return payloadDigest(t, h, map[string]any{"requestId": rid, "sessionId": "pi", "turn": 1, "step": n,
			"provider": "github-copilot", "model": "gpt-5.4", "items": items})
	}
	history := []map[string]any{
		{"type": "message"},
		{"type": "reasoning", "id": true, "sha256": digestOf("old"), "units": 3},
		{"type": "function_call", "id": true},
		{"type": "function_call_output"},
	}
	res, rerr := step(1, "d1", history)
	if rerr != nil || res.Outcome != "filtered" || len(res.Omit) != 1 || res.Omit[0] != 1 || len(res.Strip) != 1 || res.Strip[0] != 2 ||
		res.Omitted.Items != 1 || res.Omitted.CodeUnits != 3 || res.Omitted.StrippedIDs != 1 {
		t.Fatalf("step 1: %+v, %v", res, rerr)
	}
	// Step 2 adds this turn's own reasoning: kept.
	next := append(append([]map[string]any{}, history...),
		map[string]any{"type": "reasoning", "id": true, "sha256": digestOf("new"), "units": 3},
		map[string]any{"type": "function_call", "id": true})
	res, rerr = step(2, "d2", next)
	if rerr != nil || len(res.Omit) != 1 || res.Omit[0] != 1 || len(res.Strip) != 1 {
		t.Fatalf("step 2: %+v, %v", res, rerr)
	}
	// A reasoning item without a digest is refused by name.
	_, rerr = step(3, "d3", []map[string]any{{"type": "reasoning", "id": true}})
	if rerr == nil || dataCode(rerr) != "COPILOT_CONTINUATION_UNSUPPORTED_REASONING" {
		t.Fatalf("reasoning without a digest: %v", rerr)
	}
}

// TestPayloadDigestRefusesUnknownMembers: through the binary, params are
// held to their schema as sent — an unknown member at the top or in an
// item is -32602 naming it, and nothing of the turn is decided by it (the
// same request then succeeds without the member).
func TestPayloadDigestRefusesUnknownMembers(t *testing.T) {
	h := startHost(t, host.Config{})
	if _, rerr := initializeWith(t, h, []string{"github-copilot"}); rerr != nil {
		t.Fatal(rerr)
	}
	freshSession(t, h, "pi")
	if _, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: "pi", Turn: 1, Step: 1, RequestID: "u1",
		Config: host.LLMConfig{Provider: "github-copilot", Model: "gpt-5.4"}}); err != nil {
		t.Fatal(err)
	}
	params := func(extra map[string]any, item map[string]any) map[string]any {
		p := map[string]any{"requestId": "u1", "sessionId": "pi", "turn": 1, "step": 1, "provider": "github-copilot", "model": "gpt-5.4",
			"items": []map[string]any{{"type": "reasoning", "id": true, "sha256": digestOf("old"), "units": 3}, item}}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	for _, c := range []struct {
		name   string
		params map[string]any
		member string
	}{
		{"top", params(map[string]any{"payload": map[string]any{}}, map[string]any{"type": "message"}), "payload"},
		{"item", params(nil, map[string]any{"type": "function_call", "id": true, "call_id": "c1"}), "call_id"},
	} {
		_, rerr := payloadDigest(t, h, c.params)
		if rerr == nil || rerr.Code != -32602 || !strings.Contains(rerr.Message, "'"+c.member+"' not allowed") {
			t.Errorf("%s: %v", c.name, rerr)
		}
	}
	res, rerr := payloadDigest(t, h, params(nil, map[string]any{"type": "function_call", "id": true}))
	if rerr != nil || res.Outcome != "filtered" || len(res.Omit) != 1 || len(res.Strip) != 1 {
		t.Fatalf("the same request without the member: %+v, %v", res, rerr)
	}
}

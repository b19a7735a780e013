package server_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/host"
)

// initializeWith sends initialize with the given payloadProviders member
// (omitted when nil) and returns the raw result or the JSON-RPC error.
func initializeWith(t *testing.T, h *host.Host, providers any) (json.RawMessage, *host.RPCError) {
	t.Helper()
	caps := host.AllCapabilities()
	h.SetCapabilities(caps)
	params := map[string]any{"protocolVersion": "1", "host": map[string]string{"name": "pi", "version": "0.73.1"}, "capabilities": caps}
	if providers != nil {
		params["payloadProviders"] = providers
	}
	raw, rerr, err := h.Call(ctxT(t), "initialize", params)
	if err != nil {
		t.Fatal(err)
	}
	return raw, rerr
}

func acceptedProviders(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var res struct {
		Capabilities struct {
			PayloadFilter struct {
				Providers []string `json:"providers"`
			} `json:"payloadFilter"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	return res.Capabilities.PayloadFilter.Providers
}

// historyPayload is a Responses body of a continued pi session: reasoning
// issued in an earlier turn, the tool call paired with it by id, its
// output, and the new prompt.
const historyPayload = `{"model":"gpt-5.4","input":[` +
	`{"role":"user","content":[{"type":"input_text","text":"list files"}]},` +
	`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAABold=="},` +
	`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"ls","arguments":"{}"},` +
	`{"type":"function_call_output","call_id":"call_1","output":"a.go"},` +
	`{"role":"user","content":[{"type":"input_text","text":"and now?"}]}],"stream":true}`

const historyFiltered = `{"model":"gpt-5.4","input":[` +
	`{"role":"user","content":[{"type":"input_text","text":"list files"}]},` +
	`{"type":"function_call","call_id":"call_1","name":"ls","arguments":"{}"},` +
	`{"type":"function_call_output","call_id":"call_1","output":"a.go"},` +
	`{"role":"user","content":[{"type":"input_text","text":"and now?"}]}],"stream":true}`

func TestPayloadProvidersDeclaredByTheHostTakePart(t *testing.T) {
	h := startHost(t, host.Config{})
	raw, rerr := initializeWith(t, h, []string{"github-copilot", "openai", "openai-codex", "openai"})
	if rerr != nil {
		t.Fatalf("initialize: %v", rerr)
	}
	if got, want := acceptedProviders(t, raw), []string{"github-copilot", "openai", "openai-codex"}; !slices.Equal(got, want) {
		t.Fatalf("payloadFilter.providers = %q, want %q", got, want)
	}

	for i, provider := range []string{"github-copilot", "openai", "openai-codex"} {
		sid := "pi-" + provider
		freshSession(t, h, sid)
		rid := "r" + provider
		res, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: sid, Turn: 1, Step: 1, RequestID: rid,
			Config: host.LLMConfig{Provider: provider, Model: "gpt-5.4"}})
		if err != nil {
			t.Fatalf("%s: agent/request: %v", provider, err)
		}
		if res.Admission == nil || !res.Admission.Enabled {
			t.Fatalf("%s: admission = %+v, want enabled", provider, res.Admission)
		}
		out, err := h.Payload(ctxT(t), host.PayloadParams{RequestID: rid, SessionID: sid, Turn: 1, Step: 1,
			Provider: provider, Model: "gpt-5.4", Purpose: "chat", Payload: []byte(historyPayload)})
		if err != nil {
			t.Fatalf("%s: llm/payload: %v", provider, err)
		}
		// Every provider pi declares pairs item ids with reasoning, so the
		// fc_ id that followed the omitted item goes too (call_id stays).
		if out.Outcome != "filtered" || string(out.Payload) != historyFiltered ||
			out.Omitted.Items != 1 || out.Omitted.StrippedIDs != 1 {
			t.Fatalf("%s (%d): outcome %s, omitted %+v, payload %s", provider, i, out.Outcome, out.Omitted, out.Payload)
		}
	}

	// DSH's provider was not declared, so it does not take part now.
	freshSession(t, h, "dsh")
	res, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: "dsh", Turn: 1, Step: 1, RequestID: "rd",
		Config: host.LLMConfig{Provider: "github-copilot-preview", Model: "gpt-5.4"}})
	if err != nil || res.Admission != nil {
		t.Fatalf("undeclared provider: admission %+v, err %v", res.Admission, err)
	}
	out, err := h.Payload(ctxT(t), host.PayloadParams{RequestID: "rd", SessionID: "dsh", Turn: 1, Step: 1,
		Provider: "github-copilot-preview", Model: "gpt-5.4", Purpose: "chat", Payload: []byte(historyPayload)})
	if err != nil || out.Outcome != "native" || out.Payload != nil {
		t.Fatalf("undeclared provider: outcome %s, err %v", out.Outcome, err)
	}
}

func TestPayloadProvidersDefaultIsDSHCopilot(t *testing.T) {
	for _, providers := range []any{nil, json.RawMessage("null")} {
		h := startHost(t, host.Config{})
		raw, rerr := initializeWith(t, h, providers)
		if rerr != nil {
			t.Fatalf("initialize: %v", rerr)
		}
		if got := acceptedProviders(t, raw); !slices.Equal(got, []string{"github-copilot-preview"}) {
			t.Fatalf("payloadProviders %v: accepted %q", providers, got)
		}
		freshSession(t, h, "s")
		res, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: "s", Turn: 1, Step: 1, RequestID: "r",
			Config: host.LLMConfig{Provider: "github-copilot", Model: "gpt-5.4"}})
		if err != nil || res.Admission != nil {
			t.Fatalf("pi's provider without a declaration: admission %+v, err %v", res.Admission, err)
		}
	}
}

func TestPayloadProvidersUnknownAreLeftOutAndNoneIsRefused(t *testing.T) {
	h := startHost(t, host.Config{})
	raw, rerr := initializeWith(t, h, []string{"anthropic", "github-copilot"})
	if rerr != nil {
		t.Fatalf("initialize: %v", rerr)
	}
	if got := acceptedProviders(t, raw); !slices.Equal(got, []string{"github-copilot"}) {
		t.Fatalf("accepted %q, want only github-copilot", got)
	}

	for _, bad := range []any{[]string{"anthropic"}, []string{}} {
		h := startHost(t, host.Config{})
		_, rerr := initializeWith(t, h, bad)
		if rerr == nil || rerr.Code != -32602 || dataCode(rerr) != "PAYLOAD_PROVIDERS_UNSUPPORTED" {
			t.Fatalf("payloadProviders %v: error %v, want -32602 PAYLOAD_PROVIDERS_UNSUPPORTED", bad, rerr)
		}
		// The refusal leaves the plugin uninitialized, and a corrected
		// initialize then succeeds.
		_, rerr = initializeWith(t, h, []string{"openai"})
		if rerr != nil {
			t.Fatalf("initialize after a refused one: %v", rerr)
		}
	}

	h = startHost(t, host.Config{})
	_, rerr = initializeWith(t, h, "github-copilot")
	var e *host.RPCError
	if rerr == nil || !errors.As(error(rerr), &e) || e.Code != -32602 {
		t.Fatalf("payloadProviders as a string: %v, want -32602", rerr)
	}
}

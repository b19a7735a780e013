package server_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/settings"
)

// TestSettingsActivationWritesTheEpochOnce: the first start records the
// creation-time epoch [{enabled: true, changedAt}] with one write that
// keeps the namespace's other keys; a second start finds it and writes
// nothing.
func TestSettingsActivationWritesTheEpochOnce(t *testing.T) {
	for _, mode := range settingsModes {
		t.Run(mode.name, func(t *testing.T) {
			e := settingsStart(t, mode, t.TempDir())
			e.plant(`{"theme":"dark","nested":{"a":[1,2.5,"x"]}}`, 4)
			e.initReady()
			s := e.stored()
			if s.Revision != 5 || len(s.History) != 1 || !s.History[0].Enabled || s.History[0].ChangedAt <= 0 {
				t.Fatalf("after activation: revision %d, history %+v; want one enabled row at revision 5", s.Revision, s.History)
			}
			settingsOtherKeys(t, s, `{"theme":"dark","nested":{"a":[1,2.5,"x"]}}`)
			if d := e.defaults(); !d.Enabled || d.Revision != 5 {
				t.Fatalf("defaults = %+v", d)
			}
			before := e.snapshot()
			if res := e.restart(); res.Activation.State != "ready" {
				t.Fatalf("second start: activation %+v", res.Activation)
			}
			if after := e.snapshot(); after != before {
				t.Fatalf("second start rewrote the namespace:\n%s\n%s", before, after)
			}
			if n := e.h.CallCount("settings/mutate"); n != 0 {
				t.Fatalf("second start sent %d settings/mutate", n)
			}
			if len(e.changed()) != 0 {
				t.Fatal("activation announced a change")
			}
		})
	}
}

// TestSettingsActivationFailureBlocksAdmission: when the epoch cannot be
// recorded, initialize says so and turn admission refuses rather than
// guessing the policy; nothing stored is overwritten.
func TestSettingsActivationFailureBlocksAdmission(t *testing.T) {
	type setup func(e *settingsEnv)
	hostRefuses := func(e *settingsEnv) {
		e.h.Handle("settings/mutate", func(context.Context, json.RawMessage) (any, *host.RPCError) {
			return nil, &host.RPCError{Code: host.CodeInternal, Message: "settings store offline"}
		})
	}
	hostLies := func(e *settingsEnv) { e.h.SetMutateFault(host.MutateLie) }
	malformed := func(e *settingsEnv) {
		e.plant(`{"continuationDefaultHistory":[{"enabled":true,"changedAt":5},{"enabled":false,"changedAt":5}]}`, 2)
	}
	brokenFile := func(e *settingsEnv) { e.plantFile([]byte(`{"revision":3,"value":{"sessionContinuation":[]}`)) }
	cases := []struct {
		name  string
		mode  settingsMode
		setup setup
		cause string // the code get reports afterwards; "" when get works
	}{
		{"host mutate always fails", settingsModes[0], hostRefuses, ""},
		{"host mutate lies", settingsModes[0], hostLies, ""},
		{"host settings malformed", settingsModes[0], malformed, diag.SettingsInvalid},
		{"embedded settings malformed", settingsModes[1], malformed, diag.SettingsInvalid},
		{"embedded file torn", settingsModes[1], brokenFile, diag.SettingsInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := settingsStart(t, c.mode, t.TempDir())
			c.setup(e)
			before := e.snapshot()
			res := e.init()
			if res.Activation.State != "failed" || res.Activation.Code != diag.InitializationFailed {
				t.Fatalf("activation = %+v, want failed %s", res.Activation, diag.InitializationFailed)
			}
			if c.cause != "" && e.snapshot() != before {
				t.Fatalf("malformed settings were overwritten:\n%s\n%s", before, e.snapshot())
			}
			freshSession(t, e.h, "s1")
			_, err := e.h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: "s1", Turn: 1, Step: 1, RequestID: "r1",
				Config: host.LLMConfig{Provider: "github-copilot-preview", Model: "gpt-5.4"}})
			rerr, ok := err.(*host.RPCError)
			if !ok || rerr.Code != host.CodeDomain || rerr.DataCode() != diag.InitializationFailed {
				t.Fatalf("agent/request after failed activation: %v, want %s", err, diag.InitializationFailed)
			}
			// Other providers are untouched by the failure.
			other, err := e.h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: "s1", Turn: 1, Step: 1, RequestID: "r2",
				Config: host.LLMConfig{Provider: "openai", Model: "gpt-5.4"}})
			if err != nil || other.Admission != nil {
				t.Fatalf("native request: %+v, %v", other, err)
			}
			if c.cause != "" {
				e.fail("get", map[string]any{"agentId": "s1"}, c.cause)
				e.fail("set", map[string]any{"agentId": "s1", "revision": 2, "enabled": true}, c.cause)
				e.fail("setDefault", map[string]any{"revision": 2, "enabled": false}, c.cause)
				if e.snapshot() != before {
					t.Fatalf("malformed settings were overwritten:\n%s\n%s", before, e.snapshot())
				}
			}
		})
	}
}

// settingsOtherKeys checks that the namespace's keys other than the two
// continuity owns are exactly want (compared as JSON values).
func settingsOtherKeys(t *testing.T, s settingsStored, want string) {
	t.Helper()
	others := map[string]json.RawMessage{}
	for k, v := range s.Value {
		if k != settings.KeySessions && k != settings.KeyDefaults {
			others[k] = v
		}
	}
	got, _ := json.Marshal(others)
	if err := host.MatchJSON([]byte(want), got); err != nil {
		t.Fatalf("other keys of the namespace changed: %v\ngot  %s\nwant %s", err, got, want)
	}
}

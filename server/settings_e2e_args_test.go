package server_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/remote"
)

// TestSettingsArgumentsInvalid: arguments are checked before the host is
// asked anything or settings are read, and bad ones change nothing.
func TestSettingsArgumentsInvalid(t *testing.T) {
	e := settingsReady(t, settingsModes[0])
	e.agent("s1", nil)
	cases := []struct {
		name   string
		method string
		args   string
	}{
		{"control character in agentId", "get", `{"agentId":"s\u0001"}`},
		{"newline in agentId", "set", `{"agentId":"s1\n","revision":1,"enabled":true}`},
		{"format character in agentId", "set", `{"agentId":"s\u200b1","revision":1,"enabled":true}`},
		{"DEL in agentId", "authorizeNext", `{"agentId":"s\u007f","revision":1,"enabled":true}`},
		{"empty agentId", "get", `{"agentId":""}`},
		{"agentId too long", "get", `{"agentId":"` + settingsLong(257) + `"}`},
		{"unknown argument", "get", `{"agentId":"s1","accountId":"a"}`},
		{"unknown argument to set", "set", `{"agentId":"s1","revision":1,"enabled":true,"force":true}`},
		{"unknown argument to defaults", "defaults", `{"x":1}`},
		{"missing enabled", "set", `{"agentId":"s1","revision":1}`},
		{"missing revision", "setDefault", `{"enabled":true}`},
		{"revision is a string", "set", `{"agentId":"s1","revision":"1","enabled":true}`},
		{"revision is fractional", "setDefault", `{"revision":1.5,"enabled":true}`},
		{"revision is negative", "set", `{"agentId":"s1","revision":-1,"enabled":true}`},
		{"enabled is a string", "set", `{"agentId":"s1","revision":1,"enabled":"yes"}`},
		{"enabled is null for authorizeNext", "authorizeNext", `{"agentId":"s1","revision":1,"enabled":null}`},
		{"agentId is a number", "get", `{"agentId":7}`},
	}
	before := e.snapshot()
	lookups := e.h.CallCount("agents/get")
	for _, c := range cases {
		er := e.fail(c.method, json.RawMessage(c.args), remote.ArgumentsInvalid)
		if er.Message == "" {
			t.Errorf("%s: no message", c.name)
		}
	}
	if n := e.h.CallCount("agents/get"); n != lookups {
		t.Fatalf("%d agents/get for invalid arguments", n-lookups)
	}
	if e.snapshot() != before || len(e.changed()) != 0 {
		t.Fatal("invalid arguments changed settings")
	}
	e.fail("toggle", json.RawMessage(`{"agentId":"s1"}`), remote.MethodNotFound)
}

// TestSettingsSessionLookupFailures: a session the host cannot find (or
// will not look up) is a session-not-found envelope, never a guess from
// settings, and nothing is written for it.
func TestSettingsSessionLookupFailures(t *testing.T) {
	for _, mode := range settingsModes {
		t.Run(mode.name, func(t *testing.T) {
			e := settingsReady(t, mode)
			rev := e.defaults().Revision
			calls := []struct {
				method string
				args   map[string]any
			}{
				{"get", map[string]any{"agentId": "ghost"}},
				{"set", map[string]any{"agentId": "ghost", "revision": rev, "enabled": true}},
				{"set", map[string]any{"agentId": "ghost", "revision": rev, "enabled": nil}},
				{"authorizeNext", map[string]any{"agentId": "ghost", "revision": rev, "enabled": true}},
			}
			before := e.snapshot()
			for _, c := range calls {
				e.fail(c.method, c.args, remote.SessionNotFound)
			}
			if e.snapshot() != before || len(e.changed()) != 0 {
				t.Fatal("a call for an unknown session changed settings")
			}
			// A session the host disposed of is gone too.
			e.agent("gone", nil)
			e.set("gone", settingsBool(true))
			if err := e.h.Dispose("gone"); err != nil {
				t.Fatal(err)
			}
			e.fail("get", map[string]any{"agentId": "gone"}, remote.SessionNotFound)
			// A host that answers for another session is not believed.
			e.h.Handle("agents/get", func(context.Context, json.RawMessage) (any, *host.RPCError) {
				return json.RawMessage(`{"sessionId":"other","header":null,"status":"idle"}`), nil
			})
			e.fail("set", map[string]any{"agentId": "s1", "revision": rev + 1, "enabled": true}, remote.SessionNotFound)
			e.h.Handle("agents/get", nil)
			e.agent("busy", nil)
			e.h.SetAgentBusy("busy", true)
			e.fail("get", map[string]any{"agentId": "busy"}, "agent-busy")
			if s := e.stored(); len(s.Rows) != 1 || s.Rows[0].SessionID != "gone" {
				t.Fatalf("rows %+v, want only the one written before the session went", s.Rows)
			}
		})
	}
}

func settingsLong(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}

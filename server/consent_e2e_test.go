package server_test

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
)

// A one-turn consent lives only as long as its agent: disposing the agent
// drops it, so consents of agents that never ran a turn cannot pile up to
// the 2,048 limit.
func TestConsentDroppedWhenTheAgentIsDisposed(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	h.SetAgent("s1", nil, "idle")
	invoke := func(method string, args map[string]any) gjson.Result {
		t.Helper()
		res, err := h.RemoteInvoke(ctxT(t), "githubCopilotSessionContinuation", method, args)
		if err != nil || !res.OK {
			t.Fatalf("%s: %v %+v", method, err, res.Error)
		}
		return gjson.ParseBytes(res.Value)
	}
	rev := invoke("get", map[string]any{"agentId": "s1"}).Get("revision").Int()
	if !invoke("authorizeNext", map[string]any{"agentId": "s1", "revision": rev, "enabled": true}).Get("nextTurnAuthorized").Bool() {
		t.Fatal("authorizeNext did not authorize the next turn")
	}
	if err := h.Dispose("s1"); err != nil {
		t.Fatal(err)
	}
	h.SetAgent("s1", nil, "idle") // the host reuses the id for a new agent
	if invoke("get", map[string]any{"agentId": "s1"}).Get("nextTurnAuthorized").Bool() {
		t.Fatal("a disposed agent's consent survived")
	}
}

// A host without agent lookup (capabilities.agents false) still gets the
// policy view: the plugin never calls agents/get, and the birth evidence
// comes from the session's own events.
func TestPolicyWithoutAgentLookup(t *testing.T) {
	caps := host.AllCapabilities()
	caps.Agents = false
	h := initialized(t, host.Config{}, caps)
	freshSession(t, h, "s1")
	res, err := h.RemoteInvoke(ctxT(t), "githubCopilotSessionContinuation", "get", map[string]any{"agentId": "s1"})
	if err != nil || !res.OK {
		t.Fatalf("get: %v %+v", err, res.Error)
	}
	v := gjson.ParseBytes(res.Value)
	if !v.Get("enabled").Bool() || v.Get("source").Str != "default" {
		t.Fatalf("view %s: a session born after activation defaults on", res.Value)
	}
	if a := admit(t, h, "s1", 1, 1, "r1"); a.Admission == nil || !a.Admission.Enabled {
		t.Fatalf("admission %+v", a.Admission)
	}
	if n := h.CallCount("agents/get"); n != 0 {
		t.Fatalf("agents/get called %d times although the host does not offer it", n)
	}
}

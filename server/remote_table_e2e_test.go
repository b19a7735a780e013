package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/remote"
)

// TestContinuityNamespaceChecksArgs: every method of the continuity
// namespace's one table refuses args its schema refuses (a member too many,
// a required member missing, a member of the wrong type) with
// arguments-invalid naming the schema, and an unknown method is
// method-not-found, through the real binary.
func TestContinuityNamespaceChecksArgs(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	required := map[string]string{
		"accountSwitch": "agentId",
		"notices":       "agentId",
		"lineage":       "agentId",
		"handoff":       "edgeId",
		"manifest":      "manifestId",
		"projection":    "edgeId",
		"boundary":      "agentId",
	}
	for method, member := range required {
		for _, args := range []string{
			`{}`,
			`{"` + member + `":"x1","extra":1}`,
			`{"` + member + `":7}`,
		} {
			res, err := h.RemoteInvoke(ctxT(t), "continuity", method, json.RawMessage(args))
			if err != nil {
				t.Fatalf("%s %s: %v", method, args, err)
			}
			schema := "remote/continuity/" + method + ".args"
			if res.OK || res.Error == nil || res.Error.Code != remote.ArgumentsInvalid || !strings.Contains(res.Error.Message, schema) {
				t.Errorf("%s %s: %s, want arguments-invalid naming %s", method, args, res.Raw, schema)
			}
		}
	}
	res, err := h.RemoteInvoke(ctxT(t), "continuity", "pin", map[string]string{"agentId": "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Error == nil || res.Error.Code != remote.MethodNotFound {
		t.Errorf("continuity.pin: %s, want method-not-found", res.Raw)
	}
}

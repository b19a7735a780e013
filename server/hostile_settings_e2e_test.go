package server_test

import (
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// Issue 18 #10: a stored settings document with a member twice (at any
// depth) or invalid UTF-8 was read with one copy and then rewritten without
// the other. It is SETTINGS_INVALID, activation fails, and the bytes stay.
func TestHostileSettingsWithDuplicatesAreNeverRewritten(t *testing.T) {
	embedded := []string{
		`{"revision":3,"value":{},"value":{"sessionContinuation":[]}}`,
		`{"revision":3,"revision":4,"value":{}}`,
		`{"revision":3,"value":{"sessionContinuation":[],"sessionContinuation":[]}}`,
		`{"revision":3,"value":{"other":{"k":1,"k":2}}}`,
		"{\"revision\":3,\"value\":{\"other\":\"\xff\xfe\"}}",
	}
	hostValues := []string{
		`{"sessionContinuation":[],"sessionContinuation":[{"sessionId":"s1","version":1,"consentedAt":1,"enabled":true}]}`,
		`{"continuationDefaultHistory":[{"enabled":true,"changedAt":5,"changedAt":6}]}`,
		// #9: a stored row for "a\ud800" is not a row for "a\ufffd".
		`{"sessionContinuation":[{"sessionId":"a\ud800","version":1,"consentedAt":1,"enabled":true}]}`,
	}
	run := func(t *testing.T, mode settingsMode, plant func(e *settingsEnv)) {
		e := settingsStart(t, mode, t.TempDir())
		plant(e)
		before := e.snapshot()
		if res := e.init(); res.Activation.State != "failed" || res.Activation.Code != diag.InitializationFailed {
			t.Fatalf("activation = %+v", res.Activation)
		}
		freshSession(t, e.h, "s1")
		e.fail("get", map[string]any{"agentId": "s1"}, diag.SettingsInvalid)
		e.fail("set", map[string]any{"agentId": "s1", "revision": 3, "enabled": true}, diag.SettingsInvalid)
		e.fail("setDefault", map[string]any{"revision": 3, "enabled": false}, diag.SettingsInvalid)
		if after := e.snapshot(); after != before {
			t.Fatalf("the stored settings were rewritten:\n%q\n%q", before, after)
		}
	}
	for _, doc := range embedded {
		t.Run("embedded "+doc, func(t *testing.T) {
			run(t, settingsModes[1], func(e *settingsEnv) { e.plantFile([]byte(doc)) })
		})
	}
	for _, value := range hostValues {
		t.Run("host "+value, func(t *testing.T) {
			run(t, settingsModes[0], func(e *settingsEnv) { e.plant(value, 3) })
		})
	}
}

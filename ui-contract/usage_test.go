package uicontract

import "testing"

// TestOtherUsageShapesStillPass: docs/protocol.md §4 names the event types
// the plugin acts on and says "Other types are accepted"; "usage" is not
// among them (it is continuity's addition, optional for hosts). A host that
// already has an event type called "usage" with a shape of its own, or that
// reports fractional token estimates, must not have its session/event
// notifications refused at the wire: boundary already reads such data as
// unreadable and goes on.
func TestOtherUsageShapesStillPass(t *testing.T) {
	for _, data := range []string{
		`{"input_tokens": 1200, "output_tokens": 30}`,
		`{"inputTokens": 1200.5, "contextWindow": 200000}`,
	} {
		doc := `{"sessionId":"s1","event":{"type":"usage","seq":3,"time":1,"data":` + data + `}}`
		if err := Validate("wire/session/event.params", []byte(doc)); err != nil {
			t.Errorf("usage data %s is refused: %v", data, err)
		}
	}
}

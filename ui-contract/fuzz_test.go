package uicontract_test

import (
	"testing"

	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// FuzzValidate: arbitrary documents against the schemas hosts and clients
// reach (params, Remote and tool args) never panic and never hang; the seeds
// are the hostile shapes of issue 18 (huge numbers, lone surrogates,
// duplicated members, oneOf branches).
func FuzzValidate(f *testing.F) {
	schemas := []string{
		"wire/session/event.params", "wire/agent/request.params", "wire/llm/response.params",
		"wire/cancelRequest.params", "wire/remote/invoke.params", "wire/tool/call.params",
		"remote/githubCopilotSessionContinuation/set.args", "tool/session_recall.args", "tool/continue_session.args",
	}
	for i, s := range []string{
		`{"sessionId":"s","event":{"type":"user/message","seq":1e1000001,"time":1,"data":{}}}`,
		`{"sessionId":"s","turn":1,"step":1,"requestId":"r","config":{"provider":"p","model":"m"},"config":{}}`,
		`{"requestId":"r\ud800","status":1E-400}`,
		`{"id":-0.0e0000,"id":"x"}`,
		`{"namespace":"n","method":"m","args":{"a":1,"a":2}}`,
		`{"sessionId":"a\udbff","turn":0,"callId":"c","name":"n","arguments":{}}`,
		`{"agentId":"a","revision":99999999999999999999999,"enabled":null}`,
		`{"sessionId":"s","eventId":"01"}`,
		`{"sources":[{"kind":"session_events","sessionId":"\u0000"}]}`,
	} {
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, which uint8, doc []byte) {
		err := uicontract.Validate(schemas[int(which)%len(schemas)], doc)
		if err != nil && err.Error() == "" {
			t.Fatal("an error without a reason")
		}
	})
}

package continuation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-dev/continuity/hostapi"
)

// initiatingToken is the raw JSON string of the initiating user message:
// escapes, markup characters, a line separator and an astral character, so
// a re-encoding anywhere would change its bytes.
const initiatingToken = `"Please \u00e9crire <b>the</b> plan & \"quote\" \\ line\nnext \u2028 😀"`

func ev(typ, data string) hostapi.Event {
	return hostapi.Event{Type: typ, Data: json.RawMessage(data)}
}

// seedPredecessor gives session id two turns; event 6 is the initiating
// user message and event 7 the assistant's continue_session call-1.
func seedPredecessor(h *fakeHost, id string) {
	h.add(id,
		ev("turn/start", `{"turn":0}`),
		ev("user/message", `{"text":"What is wrong with compaction?"}`),
		ev("assistant/message", `{"text":"Summaries of summaries lose facts."}`),
		ev("turn/end", `{"turn":0,"reason":"stop"}`),
		ev("turn/start", `{"turn":1}`),
		ev("user/message", `{"text":`+initiatingToken+`}`),
		ev("assistant/message", `{"toolCalls":[{"callId":"call-1","name":"continue_session"}]}`),
	)
}

// argsFile reads testdata/args/<name>.json.
func argsFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "args", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// withArgs decodes testdata args, lets the test edit them, and re-encodes.
func withArgs(t *testing.T, name string, edit func(a map[string]any)) string {
	t.Helper()
	var a map[string]any
	if err := json.Unmarshal([]byte(argsFile(t, name)), &a); err != nil {
		t.Fatal(err)
	}
	edit(a)
	b, _ := json.Marshal(a)
	return string(b)
}

// as re-decodes a result's structured member into T.
func as[T any](t *testing.T, v any) T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// code is the diagnostic code of a failed result, "" for a success.
func code(t *testing.T, r ToolResult) string {
	t.Helper()
	if !r.IsError {
		return ""
	}
	return as[ToolError](t, r.Structured).Error.Code
}

// mustContinue runs continue_session and fails unless it succeeded.
func (e *env) mustContinue(session, callID, args string) ContinueResult {
	e.t.Helper()
	r := e.call(session, callID, ToolContinueSession, args)
	if r.IsError {
		e.t.Fatalf("continue_session: %s", r.Content[0].Text)
	}
	if !r.EndsTurn {
		e.t.Fatal("continue_session must end the turn")
	}
	return as[ContinueResult](e.t, r.Structured)
}

// contextOf returns the context the host received for a session.
func (h *fakeHost) contextOf(id string) json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id].context
}

// codeOfErr is diag.CodeOf for tests that check errors, not results.
func codeOfErr(err error) string { return errorCode(err) }

func errorCode(err error) string {
	if err == nil {
		return ""
	}
	return errorBody(err).Code
}

// selectedOmitted is the omitted items the compiler offered and left out,
// without the rest of the predecessor's history (tier history).
func selectedOmitted(items []ManifestItem) []ManifestItem {
	var out []ManifestItem
	for _, it := range items {
		if it.Tier != TierHistory {
			out = append(out, it)
		}
	}
	return out
}

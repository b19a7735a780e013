package uicontract_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/internal/strictjson"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// Issue 18 #1, #2: a long number literal reaches the validator as a
// bounded stand-in, so 1e1000001 in an integer member fails its bounds
// (JavaScript-safe integers) at once instead of crashing the validator,
// and a long literal where any number will do passes.
func TestValidateLongNumbers(t *testing.T) {
	for _, c := range []struct{ schema, doc, want string }{
		{"wire/session/event.params", `{"sessionId":"s","event":{"type":"user/message","seq":1e1000001,"time":1,"data":{}}}`, "/event/seq: must be <= "},
		{"wire/session/event.params", `{"sessionId":"s","event":{"type":"user/message","seq":-1E+99999999,"time":1,"data":{}}}`, "/event/seq: must be >= 0"},
		{"wire/llm/response.params", `{"requestId":"r","status":1e1000001}`, "/status: must be <= 999"},
		{"wire/agent/request.params", `{"sessionId":"s","turn":1,"step":0.` + strings.Repeat("0", 80) + `1e80,"requestId":"r","config":{"provider":"p","model":"m"}}`, "/step: expected integer"},
		{"remote/githubCopilotSessionContinuation/set.args", `{"agentId":"a","revision":1e1000001,"enabled":true}`, "/revision: must be <= "},
		{"wire/session/event.params", `{"sessionId":"s","event":{"type":"user/message","seq":` + strings.Repeat("1", 1600000) + `,"time":1,"data":{}}}`, "/event/seq: must be <= "},
		{"wire/cancelRequest.params", `{"id":` + strings.Repeat("9", 100) + `}`, ""},
		{"wire/session/event.params", `{"sessionId":"s","event":{"type":"user/message","seq":1.` + strings.Repeat("0", 80) + `,"time":1,"data":{}}}`, ""},
	} {
		start := time.Now()
		err := uicontract.Validate(c.schema, []byte(c.doc))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("%s %.80s: %v, want %q", c.schema, c.doc, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "1111") {
			t.Errorf("the error repeats the value: %.100s", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: took %v", c.schema, d)
		}
	}
}

// Issue 18 #12: a duplicated member anywhere in params or Remote args is
// refused, whichever copy a later reader would take.
func TestValidateRefusesDuplicateMembers(t *testing.T) {
	for _, c := range []struct{ schema, doc, pointer string }{
		{"remote/githubCopilotSessionContinuation/get.args", `{"agentId":"nobody","agentId":"s-ok"}`, "/agentId"},
		{"wire/agent/request.params", `{"sessionId":"s","turn":1,"step":1,"requestId":"r","config":{"provider":"p","model":"m"},"config":{"provider":"q","model":"m"}}`, "/config"},
		{"wire/cancelRequest.params", `{"id":1,"i\u0064":2}`, "/id"},
		{"wire/session/event.params", `{"sessionId":"s","event":{"type":"x","seq":1,"time":1,"data":{"a":1,"a":1}}}`, "/event/data/a"},
	} {
		err := uicontract.Validate(c.schema, []byte(c.doc))
		var se *strictjson.Error
		if !errors.As(err, &se) || !errors.Is(err, strictjson.ErrDuplicate) || se.Pointer != c.pointer {
			t.Errorf("%s: %v, want a duplicate at %s", c.schema, err, c.pointer)
		}
	}
}

// Issue 18 #9: ids that differ only by a lone surrogate are refused rather
// than aliased; U+FFFD itself, and lone surrogates in free text, pass.
func TestValidateRefusesLoneSurrogateIDs(t *testing.T) {
	for _, doc := range []string{
		`{"sessionId":"a\ud800"}`, `{"sessionId":"a\udbff"}`, `{"sessionId":"\udc00a"}`,
	} {
		err := uicontract.Validate("wire/agent/disposed.params", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), "/sessionId: holds a lone surrogate") {
			t.Errorf("%s: %v", doc, err)
		}
	}
	for _, c := range []struct{ schema, doc string }{
		{"remote/githubCopilotSessionContinuation/get.args", `{"agentId":"a\ud800"}`},
		{"wire/llm/response.params", `{"requestId":"r\udfff","status":200}`},
		{"tool/session_recall.args", `{"sessionId":"a\ud800","eventId":"1"}`},
	} {
		if err := uicontract.Validate(c.schema, []byte(c.doc)); err == nil || !strings.Contains(err.Error(), "lone surrogate") {
			t.Errorf("%s %s: %v", c.schema, c.doc, err)
		}
	}
	for _, c := range []struct{ schema, doc string }{
		{"wire/agent/disposed.params", `{"sessionId":"a\ufffd"}`},
		{"wire/agent/disposed.params", `{"sessionId":"\ud83d\ude00"}`},
		{"wire/session/event.params", `{"sessionId":"s","event":{"type":"user/message","seq":1,"time":1,"data":{"text":"cut \ud83d"}}}`},
	} {
		if err := uicontract.Validate(c.schema, []byte(c.doc)); err != nil {
			t.Errorf("%s %s: %v", c.schema, c.doc, err)
		}
	}
}

// Issue 18 #13: a oneOf failure names the branch the arguments meant, and
// no message repeats the rejected value.
func TestValidateNamesTheMeantBranch(t *testing.T) {
	long := strings.Repeat("x", 10<<10)
	for _, c := range []struct{ doc, want string }{
		{`{"sessionId":"` + long + `","eventId":"1"}`, "/sessionId: length must be <= 256"},
		{`{"sessionId":"` + long + `","fromEventId":"1","toEventId":"2"}`, "/sessionId: length must be <= 256"},
		{`{"sessionId":"a\u0007b","fromEventId":"1","toEventId":"2"}`, "/sessionId: does not match pattern"},
		{`{"sessionId":"s","eventId":"01"}`, "/eventId: does not match pattern"},
		{`{"sessionId":"s"}`, "/: missing properties"},
	} {
		err := uicontract.Validate("tool/session_recall.args", []byte(c.doc))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%.60s: %v, want %q", c.doc, err, c.want)
		}
		if err != nil && (strings.Contains(err.Error(), "xxxx") || len(err.Error()) > 300) {
			t.Errorf("the error repeats the value: %.100s", err)
		}
	}
	err := uicontract.Validate("remote/githubCopilotSessionContinuation/set.args", []byte(`{"agentId":"a","revision":-12345,"enabled":true}`))
	if err == nil || strings.Contains(err.Error(), "12345") {
		t.Errorf("revision -12345: %v", err)
	}
	err = uicontract.Validate("tool/continue_session.args", []byte(`{"reason":"other","title":"t","handoff":{"purpose":"p","currentRequest":"c"},"sources":[{"kind":"session_events","sessionId":"s","fromEventId":"1","toEventId":"0x","relevance":"r"}]}`))
	if err == nil || !strings.HasPrefix(err.Error(), "/sources/0/toEventId: ") {
		t.Errorf("continue_session source: %v", err)
	}
}

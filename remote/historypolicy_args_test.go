package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/settings"
)

func TestArgumentsInvalid(t *testing.T) {
	tests := []struct {
		method, args string
	}{
		{"get", `{}`},
		{"get", `[]`},
		{"get", `"fresh"`},
		{"get", `{"agentId":"fresh","extra":1}`},
		{"get", `{"agentID":"fresh"}`},
		{"get", `{"agentId":7}`},
		{"get", `{"agentId":""}`},
		{"get", `{"agentId":"fre\u0000sh"}`},
		{"get", `{"agentId":"fresh\n"}`},
		{"get", `{"agentId":"fr\u200besh"}`},
		{"get", `{"agentId":"` + strings.Repeat("x", 257) + `"}`},
		{"set", `{"agentId":"fresh","revision":1}`},
		{"set", `{"agentId":"fresh","enabled":true}`},
		{"set", `{"agentId":"fresh","revision":"1","enabled":true}`},
		{"set", `{"agentId":"fresh","revision":-1,"enabled":true}`},
		{"set", `{"agentId":"fresh","revision":1.5,"enabled":true}`},
		{"set", `{"agentId":"fresh","revision":1.0,"enabled":true}`},
		{"set", `{"agentId":"fresh","revision":1e30,"enabled":true}`},
		{"set", `{"agentId":"fresh","revision":1,"enabled":"true"}`},
		{"set", `{"agentId":"fresh","revision":1,"enabled":true,"scope":"all"}`},
		{"set", `{"agentId":"fresh\u0007","revision":1,"enabled":true}`},
		{"authorizeNext", `{"agentId":"fresh","revision":1,"enabled":null}`},
		{"authorizeNext", `{"agentId":"fresh","revision":1}`},
		{"defaults", `{"agentId":"fresh"}`},
		{"defaults", `[]`},
		{"setDefault", `{"revision":1,"enabled":null}`},
		{"setDefault", `{"revision":1}`},
		{"setDefault", `{"revision":1,"enabled":false,"agentId":"fresh"}`},
		{"setDefault", `not json`},
		// Issue 18: duplicated members, lone surrogates in ids and number
		// literals beyond the bounds.
		{"get", `{"agentId":"nobody","agentId":"fresh"}`},
		{"get", `{"agentId":"fresh","\u0061gentId":"fresh"}`},
		{"set", `{"agentId":"fresh","revision":1,"revision":2,"enabled":true}`},
		{"get", `{"agentId":"fresh\ud800"}`},
		{"set", `{"agentId":"\udbfffresh","revision":1,"enabled":true}`},
		{"set", `{"agentId":"fresh","revision":1e1000001,"enabled":true}`},
		{"authorizeNext", `{"agentId":"fresh","revision":1E+99999999999,"enabled":true}`},
		{"setDefault", `{"revision":` + strings.Repeat("9", 100000) + `,"enabled":true}`},
	}
	r := newRig(t)
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.args, func(t *testing.T) {
			got := r.call(tt.method, tt.args)
			if !strings.HasPrefix(got, `{"ok":false,"error":{"code":"arguments-invalid"`) {
				t.Fatalf("= %s, want arguments-invalid", got)
			}
		})
	}
	if r.agents.calls != 0 || r.store.Mutates() != 1 || len(r.emit.events) != 0 {
		t.Fatalf("invalid calls reached the host: %d lookups, %d writes, %d events", r.agents.calls, r.store.Mutates()-1, len(r.emit.events))
	}
}

func TestLookupFailures(t *testing.T) {
	r := newRig(t)
	args := map[string]string{
		"get":           `{"agentId":%q}`,
		"set":           `{"agentId":%q,"revision":1,"enabled":true}`,
		"authorizeNext": `{"agentId":%q,"revision":1,"enabled":true}`,
	}
	for _, tt := range []struct{ id, code string }{
		{"missing", "session-not-found"},
		{"impostor", "session-not-found"},
		{"busy", "agent-busy"},
		{"broken", "host-unavailable"},
	} {
		for m, a := range args {
			got := r.call(m, fmt.Sprintf(a, tt.id))
			if !strings.HasPrefix(got, `{"ok":false,"error":{"code":"`+tt.code+`"`) {
				t.Errorf("%s %s = %s, want %s", m, tt.id, got, tt.code)
			}
		}
	}
	if r.store.Mutates() != 1 || len(r.emit.events) != 0 || r.consent.Authorized("missing") {
		t.Fatal("a call for a session the host did not find changed something")
	}
}

func TestMethodNotFound(t *testing.T) {
	r := newRig(t)
	for _, m := range []string{"", "Get", "enable", "changed", "set/"} {
		if got := r.call(m, `{}`); !strings.HasPrefix(got, `{"ok":false,"error":{"code":"method-not-found"`) {
			t.Errorf("%q = %s", m, got)
		}
	}
}

func TestEnvelopeShape(t *testing.T) {
	long := strings.Repeat("é", 600) // 1,200 bytes
	for _, tt := range []struct {
		env  Envelope
		want string
	}{
		{Success(map[string]int{"a": 1}), `{"ok":true,"value":{"a":1}}`},
		{Success(nil), `{"ok":true,"value":null}`},
		// An error without a code may hold anything: its text stays in the log.
		{Failure(errors.New("plain /secret/path")), `{"ok":false,"error":{"code":"internal-error","message":"an internal error occurred","details":{}}}`},
		{Failure(settings.ConflictError(1, 2)), `{"ok":false,"error":{"code":"COPILOT_CONTINUATION_CONFLICT","message":"settings namespace \"github-copilot\" changed since it was read (expected revision 1, now 2)","details":{"actual":2,"expected":1}}}`},
		{Failure(diag.New(InternalError, long)), `{"ok":false,"error":{"code":"internal-error","message":"` + long[:1024] + `","details":{}}}`},
	} {
		b, err := json.Marshal(tt.env)
		if err != nil || string(b) != tt.want {
			t.Errorf("= %s (%v), want %s", b, err, tt.want)
		}
	}
}

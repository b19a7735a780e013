package server

import (
	"reflect"
	"strings"
	"testing"
)

// canonicalAgentRequest is agent/request's params as the pi extension and
// the bench write them.
const canonicalAgentRequest = `{"sessionId":"bench session","turn":3,"step":1,"requestId":"r3.1",` +
	`"config":{"provider":"github-copilot","model":"gpt-5.4","reasoningEffort":"high"},"accountId":"acct-1"}`

// agentRequestVariants are params around the canonical form: each changes
// one thing, across every rule of the fast reader and past every bound of
// the schema.
func agentRequestVariants() []string {
	base := canonicalAgentRequest
	swap := func(old, new string) string {
		if !strings.Contains(base, old) {
			panic("no " + old)
		}
		return strings.Replace(base, old, new, 1)
	}
	return []string{base,
		`{"sessionId":"s","turn":1,"step":2,"requestId":"r2","config":{"provider":"github-copilot","model":"m"}}`,
		`{"config":{"model":"m","provider":"p"},"requestId":"r","step":1,"turn":0,"sessionId":"s"}`,
		`{"sessionId":"s","turn":1,"step":2,"requestId":"r2","config":{"provider":"p","model":"m"}} `,
		` {"sessionId":"s","turn":1,"step":2,"requestId":"r2","config":{"provider":"p","model":"m"}}`,
		`[]`, `null`, `"x"`, `{}`,
		// Members.
		swap(`,"accountId":"acct-1"`, ``),
		swap(`"sessionId":"bench session",`, ``),
		swap(`"turn":3,`, ``),
		swap(`"step":1,`, ``),
		swap(`"requestId":"r3.1",`, ``),
		swap(`"config":{"provider":"github-copilot","model":"gpt-5.4","reasoningEffort":"high"},`, ``),
		swap(`"step":1,`, `"step":1,"extra":1,`),
		swap(`"step":1,`, `"step":1,"extra":{"a":1,"a":2},`),
		swap(`"step":1,`, `"step":1,"SessionId":"other",`),
		swap(`"step":1,`, `"step":1,"step":1,`),
		swap(`"step":1,`, `"step":1,"requestId":"r3.1",`),
		swap(`"accountId":"acct-1"`, `"accountId":"acct-1","accountId":"acct-1"`),
		swap(`"sessionId"`, `"session\u0049d"`),
		swap(`"config"`, `"c\u006fnfig"`),
		swap(`"requestId":"r3.1",`, ` "requestId" : "r3.1" , `),
		// Config.
		swap(`,"reasoningEffort":"high"`, ``),
		swap(`"provider":"github-copilot",`, ``),
		swap(`,"model":"gpt-5.4"`, ``),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"high","api":"responses"`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"high","headers":{"x":"1"}`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"high","headers":{"x":"1","x":"2"}`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"high","n":1e999`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"high","model":"gpt-5.4"`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"high","reasoningEffort":"low"`),
		swap(`"reasoningEffort":"high"`, `"Model":"other"`),
		swap(`"provider"`, `"pr\u006fvider"`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":""`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"very high"`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"`+strings.Repeat("h", 64)+`"`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"`+strings.Repeat("h", 65)+`"`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"h\u00e9"`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"hé"`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":"h\tx"`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":null`),
		swap(`"reasoningEffort":"high"`, `"reasoningEffort":7`),
		swap(`{"provider":"github-copilot","model":"gpt-5.4","reasoningEffort":"high"}`, `{}`),
		swap(`{"provider":"github-copilot","model":"gpt-5.4","reasoningEffort":"high"}`, `null`),
		swap(`{"provider":"github-copilot","model":"gpt-5.4","reasoningEffort":"high"}`, `[]`),
		swap(`{"provider":"github-copilot","model":"gpt-5.4","reasoningEffort":"high"}`, `"github-copilot"`),
		swap(`{"provider":"github-copilot","model":"gpt-5.4","reasoningEffort":"high"}`, `{ "provider" : "p" , "model" : "m" }`),
		swap(`"github-copilot"`, `"github copilot"`),
		swap(`"github-copilot"`, `""`),
		swap(`"github-copilot"`, `null`),
		swap(`"github-copilot"`, `"`+strings.Repeat("p", 256)+`"`),
		swap(`"github-copilot"`, `"`+strings.Repeat("p", 257)+`"`),
		swap(`"gpt-5.4"`, `"gpt/5.4~!"`),
		swap(`"gpt-5.4"`, `"gpt\u002d5"`),
		swap(`"gpt-5.4"`, `"gpt-\u00ad"`),
		swap(`"gpt-5.4"`, `"gpt-é"`),
		swap(`"gpt-5.4"`, `7`),
		// Strings.
		swap(`"r3.1"`, `""`),
		swap(`"r3.1"`, `"r 1"`),
		swap(`"r3.1"`, `"r\t1"`),
		swap(`"r3.1"`, `"r\u0031"`),
		swap(`"r3.1"`, `"r-é"`),
		swap(`"r3.1"`, `"r-\u200b"`),
		swap(`"r3.1"`, `"`+strings.Repeat("r", 256)+`"`),
		swap(`"r3.1"`, `"`+strings.Repeat("r", 257)+`"`),
		swap(`"r3.1"`, `7`),
		swap(`"r3.1"`, `null`),
		swap(`"bench session"`, `""`),
		swap(`"bench session"`, `"s\u0001"`),
		swap(`"bench session"`, `"s\ud800"`),
		swap(`"bench session"`, `"séance"`),
		swap(`"bench session"`, `"`+strings.Repeat("s", 256)+`"`),
		swap(`"bench session"`, `"`+strings.Repeat("s", 257)+`"`),
		swap(`"acct-1"`, `""`),
		swap(`"acct-1"`, `"acct 1"`),
		swap(`"acct-1"`, `null`),
		swap(`"acct-1"`, `"`+strings.Repeat("a", 257)+`"`),
		// Integers.
		swap(`"turn":3`, `"turn":0`),
		swap(`"turn":3`, `"turn":null`),
		swap(`"turn":3`, `"turn":-1`),
		swap(`"turn":3`, `"turn":3.0`),
		swap(`"turn":3`, `"turn":3.5`),
		swap(`"turn":3`, `"turn":3e0`),
		swap(`"turn":3`, `"turn":9007199254740991`),
		swap(`"turn":3`, `"turn":9007199254740992`),
		swap(`"turn":3`, `"turn":"3"`),
		swap(`"turn":3`, `"turn":true`),
		swap(`"step":1`, `"step":0`),
		swap(`"step":1`, `"step":2`),
		swap(`"step":1`, `"step":null`),
		swap(`"step":1`, `"step":1.0`),
		swap(`"step":1`, `"step":-0`),
		swap(`"step":1`, `"step":9007199254740991`),
		swap(`"step":1`, `"step":9007199254740992`),
	}
}

// TestFastAgentRequestAgreesWithTheSchema holds the fast reader to the
// schema: whatever it accepts, the schema accepts and the decoder reads
// the same request and config; and readAgentRequest answers every variant
// exactly as it does without the fast reader (the same request and config,
// or the same error code and message).
func TestFastAgentRequestAgreesWithTheSchema(t *testing.T) {
	slow := func(doc string) (agentRequestParams, error) {
		fastRequests = false
		defer func() { fastRequests = true }()
		return readAgentRequest(paramsOf(t, doc))
	}
	fast, refused, schemaOnly := 0, 0, 0
	for _, doc := range agentRequestVariants() {
		want, wantErr := slow(doc)
		got, ok := fastAgentRequest(paramsOf(t, doc).Bytes())
		if ok && (wantErr != nil || !reflect.DeepEqual(got, want)) {
			t.Errorf("the fast reader read %+v %s, the schema and decoder %+v %s (%v):\n%s",
				got.AgentRequest, got.config, want.AgentRequest, want.config, wantErr, clip(doc))
		}
		read, err := readAgentRequest(paramsOf(t, doc))
		switch {
		case (err == nil) != (wantErr == nil) || err != nil && !reflect.DeepEqual(err, wantErr):
			t.Errorf("readAgentRequest answered %v, without the fast reader %v:\n%s", err, wantErr, clip(doc))
		case !reflect.DeepEqual(read, want):
			t.Errorf("readAgentRequest read %+v, without the fast reader %+v:\n%s", read, want, clip(doc))
		case wantErr != nil:
			refused++
		case ok:
			fast++
		default:
			schemaOnly++
		}
	}
	// Each way through must have been taken, or the table tests less than it says.
	if fast < 18 || refused < 50 || schemaOnly < 12 {
		t.Fatalf("read fast %d, refused %d, accepted through the schema %d", fast, refused, schemaOnly)
	}
}

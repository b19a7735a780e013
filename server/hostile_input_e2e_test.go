package server_test

// Issue 18 through the real binary: hostile numbers, duplicated members,
// ids that differ only by a lone surrogate, and oneOf errors. Every frame is
// written as raw bytes, because an encoder would normalise what is tested.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/remote"
)

// hostileAlive checks that the plugin still answers a request.
func hostileAlive(t *testing.T, h *host.Host, after string) {
	t.Helper()
	res, err := h.RemoteInvoke(ctxT(t), remote.HistoryPolicyNamespace, "defaults", nil)
	if err != nil || !res.OK {
		t.Fatalf("after %s: %v %s", after, err, res.Raw)
	}
}

// hostileInvalid sends raw params and wants -32602 whose message has want.
func hostileInvalid(t *testing.T, h *host.Host, method, params, want string) {
	t.Helper()
	_, rerr, err := h.CallRaw(ctxT(t), method, []byte(params))
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if rerr == nil || rerr.Code != -32602 || !strings.Contains(rerr.Message, want) {
		t.Fatalf("%s %.80s: %v, want -32602 with %q", method, params, rerr, want)
	}
}

// hostileArgsInvalid sends Remote args and wants arguments-invalid.
func hostileArgsInvalid(t *testing.T, h *host.Host, method, args, want string) {
	t.Helper()
	res, err := h.RemoteInvoke(ctxT(t), remote.HistoryPolicyNamespace, method, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Error == nil || res.Error.Code != remote.ArgumentsInvalid || !strings.Contains(res.Error.Message, want) {
		t.Fatalf("%s %s: %s, want arguments-invalid with %q", method, args, res.Raw, want)
	}
}

// hostileRefused is how a value beyond a JavaScript-safe integer fails.
const hostileRefused = "must be <= 9.007199254740991e+15"

// hostileLogged waits until the plugin's stderr holds every one of want.
func hostileLogged(t *testing.T, h *host.Host, want ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tail := string(h.StderrTail())
		missing := ""
		for _, w := range want {
			if !strings.Contains(tail, w) {
				missing = w
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stderr never said %s:\n%s", missing, tail)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// #1: 1e1000001 in any integer-typed member used to kill the process (exit
// 2, everything in flight lost). Now each is refused and the plugin lives.
func TestHostileHugeExponentsAreRefused(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	freshSession(t, h, "s")
	for _, note := range []string{
		`{"jsonrpc":"2.0","method":"session/event","params":{"sessionId":"s","event":{"type":"user/message","seq":1e1000001,"time":1,"data":{}}}}`,
		`{"jsonrpc":"2.0","method":"session/event","params":{"sessionId":"s","event":{"type":"user/message","seq":1,"time":1e1000001,"data":{}}}}`,
		`{"jsonrpc":"2.0","method":"session/event","params":{"sessionId":"s","event":{"type":"turn/start","seq":1,"time":1,"data":{"turn":1e1000001}}}}`,
		`{"jsonrpc":"2.0","method":"session/event","params":{"sessionId":"s","event":{"type":"user/message","seq":1,"time":1,"data":{}},"header":{"createdAt":1e1000001}}}`,
		`{"jsonrpc":"2.0","method":"llm/response","params":{"requestId":"r","status":1e1000001}}`,
	} {
		if err := h.SendLine([]byte(note)); err != nil {
			t.Fatal(err)
		}
		hostileAlive(t, h, note)
	}
	hostileInvalid(t, h, "agent/request", `{"sessionId":"s","turn":1e1000001,"step":1,"requestId":"r","config":{"provider":"github-copilot-preview","model":"m"}}`, hostileRefused)
	hostileInvalid(t, h, "llm/payload", `{"requestId":"r","sessionId":"s","turn":1,"step":1e1000001,"provider":"github-copilot-preview","model":"m","purpose":"chat","payload":{"input":[]}}`, "/step: "+hostileRefused)
	hostileInvalid(t, h, "tool/call", `{"sessionId":"s","turn":1e1000001,"callId":"c","name":"session_lineage","arguments":{}}`, hostileRefused)
	for _, m := range []string{"set", "authorizeNext"} {
		hostileArgsInvalid(t, h, m, `{"agentId":"s","revision":1e1000001,"enabled":true}`, hostileRefused)
	}
	hostileArgsInvalid(t, h, "setDefault", `{"revision":1e1000001,"enabled":true}`, hostileRefused)
	hostileAlive(t, h, "every refusal")
}

// #2: a seq of millions of digits held the read loop for seconds (4× per
// doubling); now the literal is refused by its length, so a later request
// and a cancellation are not held.
func TestHostileLongNumberDoesNotHoldTheReadLoop(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	digits := strings.Repeat("7", 16<<20)
	frame := `{"jsonrpc":"2.0","method":"session/event","params":{"sessionId":"s","event":{"type":"user/message","seq":` + digits + `,"time":1,"data":{}}}}`
	start := time.Now()
	if err := h.SendLine([]byte(frame)); err != nil {
		t.Fatal(err)
	}
	hostileAlive(t, h, "16 Mi digits")
	t.Logf("a request behind a 16 Mi-digit seq was answered after %v", time.Since(start))
}

// #12: a duplicated member anywhere in params or Remote args is refused:
// the handler and the cancellation path would each take another copy.
func TestHostileDuplicateMembersAreRefused(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	freshSession(t, h, "s-ok")
	const dup = "appears more than once"
	hostileInvalid(t, h, "agent/request", `{"sessionId":"s-ok","turn":1,"step":1,"requestId":"r1","config":{"provider":"github-copilot-preview","model":"a"},"config":{"provider":"openai","model":"b"}}`, "/config: a member name "+dup)
	hostileInvalid(t, h, "agent/request", `{"sessionId":"s-ok","turn":1,"step":1,"requestId":"r1","requestId":"r2","config":{"provider":"github-copilot-preview","model":"a"}}`, "/requestId: a member name "+dup)
	hostileInvalid(t, h, "agent/request", `{"sessionId":"nobody","sessionId":"s-ok","turn":1,"step":1,"requestId":"r1","config":{"provider":"github-copilot-preview","model":"a"}}`, "/sessionId")
	hostileInvalid(t, h, "remote/invoke", `{"namespace":"githubCopilotSessionContinuation","namespace":"continuity","method":"defaults","args":{}}`, `"namespace" appears more than once`)
	hostileInvalid(t, h, "tool/call", `{"sessionId":"s-ok","turn":1,"callId":"c","name":"session_recall","arguments":{"sessionId":"x","sessionId":"s-ok","eventId":"1"}}`, "/arguments/sessionId")
	hostileArgsInvalid(t, h, "get", `{"agentId":"nobody","agentId":"s-ok"}`, "/agentId: a member name "+dup)
	hostileArgsInvalid(t, h, "set", `{"agentId":"s-ok","revision":0,"enabled":false,"enabled":true}`, "/enabled")
	// A session event with its session or seq twice is not applied, and
	// the log says why.
	for _, note := range []string{
		`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"nobody","sessionId":"s-ok","event":{"type":"turn/start","seq":1,"time":1,"data":{}}}}`,
		`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s-ok","event":{"type":"turn/start","seq":1,"seq":2,"time":1,"data":{}}}}`,
	} {
		if err := h.SendLine([]byte(note)); err != nil {
			t.Fatal(err)
		}
	}
	hostileAlive(t, h, "duplicated event members")
	hostileLogged(t, h, `\"sessionId\" appears more than once`, `event.\"seq\" appears more than once`)
	// Nothing was admitted under either copy.
	res, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: "s-ok", Turn: 1, Step: 1, RequestID: "r3",
		Config: host.LLMConfig{Provider: "github-copilot-preview", Model: "gpt-5.4"}})
	if err != nil {
		t.Fatalf("a clean agent/request after the refusals: %v", err)
	}
	_ = res
}

// #9: "a\ud800", "a\udbff" and "a\ufffd" are three ids to a UTF-16 host;
// a lenient decoder made them one. Lone surrogates in ids are refused, and
// U+FFFD itself stays an ordinary character.
func TestHostileLoneSurrogateIDsAreRefused(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	freshSession(t, h, "a\uFFFD")
	const lone = "lone surrogate"
	hostileArgsInvalid(t, h, "get", `{"agentId":"a\ud800"}`, "/agentId: holds a "+lone)
	hostileArgsInvalid(t, h, "set", `{"agentId":"a\udbff","revision":0,"enabled":true}`, lone)
	hostileInvalid(t, h, "agent/request", `{"sessionId":"a\ud800","turn":1,"step":1,"requestId":"r1","config":{"provider":"github-copilot-preview","model":"m"}}`, "/sessionId: holds a "+lone)
	hostileInvalid(t, h, "agent/request", `{"sessionId":"s","turn":1,"step":1,"requestId":"r\udc00","config":{"provider":"github-copilot-preview","model":"m"}}`, "/requestId: holds a "+lone)
	if err := h.SendLine([]byte(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"a\udbff","event":{"type":"turn/start","seq":1,"time":1,"data":{}}}}`)); err != nil {
		t.Fatal(err)
	}
	hostileLogged(t, h, "sessionId holds a lone surrogate escape")
	res, err := h.RemoteInvoke(ctxT(t), remote.HistoryPolicyNamespace, "get", json.RawMessage(`{"agentId":"a\ufffd"}`))
	if err != nil || !res.OK {
		t.Fatalf("get a\\ufffd: %v %s", err, res.Raw)
	}
}

// #13: session_recall's arguments are a oneOf; the error names what is
// wrong with the form the arguments use, not a member of the other form.
func TestHostileOneOfErrorsNameTheRealReason(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	freshSession(t, h, "s")
	for _, c := range []struct{ args, want string }{
		{`{"sessionId":"` + strings.Repeat("x", 10<<10) + `","eventId":"1"}`, "/sessionId: length must be <= 256"},
		{`{"sessionId":"a\u0001b","fromEventId":"1","toEventId":"2"}`, "/sessionId: does not match pattern"},
		{`{"sessionId":"s","eventId":"01"}`, "/eventId: does not match pattern"},
	} {
		raw, rerr, err := h.CallRaw(ctxT(t), "tool/call", []byte(`{"sessionId":"s","turn":1,"callId":"c","name":"session_recall","arguments":`+c.args+`}`))
		if err != nil {
			t.Fatal(err)
		}
		var res host.ToolResult
		got := ""
		if rerr != nil {
			got = rerr.Message
		} else if json.Unmarshal(raw, &res) == nil && len(res.Content) == 1 && res.IsError {
			got = res.Content[0].Text
		}
		if !strings.Contains(got, c.want) || strings.Contains(got, "missing properties") || strings.Contains(got, "xxxxxxxx") {
			t.Fatalf("%.60s: %.300s, want %q", c.args, got, c.want)
		}
	}
}

// The number bound is for values a validator parses, not for ids: the wire
// takes any integer id, so $/cancelRequest must reach a request whose id
// has more digits than the bound (and a cancellation naming its id twice is
// refused, not read with a first-copy rule).
func TestHostileCancelReachesALongIntegerID(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	release := h.Hold("agents/get")
	defer release()
	id := strings.Repeat("9", 100)
	line := `{"jsonrpc":"2.0","id":` + id + `,"method":"agent/request","params":{"sessionId":"long","turn":1,"step":1,"requestId":"rq","config":{"provider":"github-copilot-preview","model":"gpt-5.4"}}}`
	if err := h.SendLine([]byte(line)); err != nil {
		t.Fatal(err)
	}
	if err := h.WaitHeld(ctxT(t), "agents/get", 1); err != nil {
		t.Fatal(err)
	}
	for _, cancel := range []string{
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1,"id":` + id + `}}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}`,
	} {
		if err := h.SendLine([]byte(cancel)); err != nil {
			t.Fatal(err)
		}
	}
	release()
	if m := replyTo(t, h, id); m.Error == nil || m.Error.Code != -32800 {
		t.Fatalf("the request was not cancelled: %s", m.Raw)
	}
	hostileLogged(t, h, `"method":"$/cancelRequest","reason":"invalid params: /id: a member name appears more than once"`)
}

package server_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/server"
)

// An initialize refused by its params check (-32602) leaves the gate
// closed: notifications sent after it are dropped, not held and applied
// after a later successful initialize.
func TestRejectedInitializeHoldsNoNotifications(t *testing.T) {
	h := startHost(t, host.Config{})
	h.SetCapabilities(host.AllCapabilities())
	_, rerr, err := h.Call(ctxT(t), "initialize", map[string]any{"protocolVersion": "1", "capabilities": host.AllCapabilities()})
	if err != nil {
		t.Fatal(err)
	}
	if rerr == nil || rerr.Code != -32602 {
		t.Fatalf("initialize without host: %v, want -32602", rerr)
	}
	born := time.Now().Add(time.Hour).UnixMilli()
	if _, err := h.SessionEvent("s1", host.Ev("session/created", map[string]any{}), &hostapi.SessionHeader{CreatedAt: &born}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Initialize(ctxT(t), host.AllCapabilities()); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	h.SetAgent("s1", nil, "idle")
	admit(t, h, "s1", 1, 1, "r1")
	if n := h.CallCount("agents/get"); n == 0 {
		t.Fatal("the header sent after a refused initialize was applied later: agents/get was never asked")
	}
	if !strings.Contains(string(h.StderrTail()), "notification before initialize dropped") {
		t.Fatalf("the dropped notification has no log line:\n%s", h.StderrTail())
	}
}

// Stdin EOF while requests wait on the host and boundary decisions are
// queued: the process still exits 0 within server.ExitWithin.
func TestEOFExitsWithinPromiseWhileWorkRuns(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	h.Hold("agents/get")
	for i, sid := range []string{"s1", "s2", "s3"} {
		if _, err := h.SessionEvent("b"+sid, host.Ev("turn/end", map[string]any{"turn": 1, "reason": "completed"}), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Send("agent/request", map[string]any{"requestId": "r" + sid, "sessionId": sid, "turn": 1, "step": 1,
			"config": map[string]any{"provider": "github-copilot-preview", "model": "m"}}); err != nil {
			t.Fatal(err)
		}
		if err := h.WaitHeld(ctxT(t), "agents/get", i+1); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	if err := h.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	code, err := h.WaitContext(ctxT(t))
	took := time.Since(start)
	if err != nil || code != 0 {
		t.Fatalf("after EOF: exit %d, %v", code, err)
	}
	if took > server.ExitWithin {
		t.Fatalf("exited %v after EOF, promised within %v", took, server.ExitWithin)
	}
}

// A data directory that cannot be created (its parent is a regular file;
// the tests run as root, so permissions alone would not stop them) is a
// failed activation with STORAGE_UNAVAILABLE and a reason, not a bare
// -32603; what needs no disk keeps working and the rest answers the code.
func TestUncreatableDataDirIsAFailedActivation(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(file, "data")
	for _, tc := range []struct {
		name      string
		caps      host.Capabilities
		admission bool // host settings keep the policy, so admission works
	}{
		{"host settings", host.AllCapabilities(), true},
		{"embedded settings", host.Capabilities{Agents: true, Sessions: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startHost(t, host.Config{DataDir: dir})
			res, err := h.Initialize(ctxT(t), tc.caps)
			if err != nil {
				t.Fatalf("initialize: %v", err)
			}
			act := gjson.GetBytes(res.Raw, "activation")
			if act.Get("state").Str != "failed" || act.Get("code").Str != "COPILOT_CONTINUATION_STORAGE_UNAVAILABLE" {
				t.Fatalf("activation = %s", act.Raw)
			}
			if reason := act.Get("reason").Str; !strings.Contains(reason, "data directory") || !strings.Contains(reason, "not a directory") {
				t.Fatalf("activation reason %q does not say what failed", reason)
			}
			lin, err := h.RemoteInvoke(ctxT(t), "continuity", "lineage", map[string]any{"agentId": "s1"})
			if err != nil {
				t.Fatalf("continuity/lineage: %v", err)
			}
			if lin.OK || lin.Error == nil || lin.Error.Code != "COPILOT_CONTINUATION_STORAGE_UNAVAILABLE" {
				t.Fatalf("continuity/lineage = %s", lin.Raw)
			}
			tool, err := h.ToolCall(ctxT(t), host.ToolCallParams{SessionID: "s1", Turn: 1, CallID: "c1", Name: "session_lineage"})
			if err != nil {
				t.Fatalf("tool/call: %v", err)
			}
			if !tool.IsError || !strings.Contains(string(tool.Raw), "STORAGE_UNAVAILABLE") {
				t.Fatalf("tool/call = %s", tool.Raw)
			}
			if _, err := h.RemoteInvoke(ctxT(t), "continuity", "notices", map[string]any{"agentId": "s1"}); err != nil {
				t.Fatalf("continuity/notices needs no disk: %v", err)
			}
			if _, err := h.SessionEvent("s1", host.Ev("turn/end", map[string]any{"turn": 1, "reason": "completed"}), nil); err != nil {
				t.Fatal(err)
			}
			freshSession(t, h, "s2")
			ar, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: "s2", Turn: 1, Step: 1, RequestID: "r1",
				Config: host.LLMConfig{Provider: "github-copilot-preview", Model: "gpt-5.4"}})
			if tc.admission {
				if err != nil || ar.Admission == nil || !ar.Admission.Enabled {
					t.Fatalf("admission with host settings: %+v, %v", ar.Admission, err)
				}
				return
			}
			var rerr *host.RPCError
			if !errors.As(err, &rerr) || rerr.Code != -32001 || !strings.Contains(rerr.Message, "COPILOT_CONTINUATION_") {
				t.Fatalf("admission without settings: %v, want a named -32001 refusal", err)
			}
		})
	}
}

// remote/invoke with args absent or null: a method without arguments
// answers, one with required arguments is an arguments-invalid result;
// neither is a JSON-RPC error.
func TestRemoteInvokeArgsAbsentOrNull(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	for _, params := range []string{
		`{"namespace":"githubCopilotSessionContinuation","method":"defaults"}`,
		`{"namespace":"githubCopilotSessionContinuation","method":"defaults","args":null}`,
	} {
		res, rerr, err := h.CallRaw(ctxT(t), "remote/invoke", []byte(params))
		if err != nil || rerr != nil {
			t.Fatalf("%s: %v %v", params, err, rerr)
		}
		if !gjson.GetBytes(res, "ok").Bool() {
			t.Fatalf("%s = %s, want ok", params, res)
		}
	}
	for _, params := range []string{
		`{"namespace":"continuity","method":"notices"}`,
		`{"namespace":"continuity","method":"lineage","args":null}`,
		`{"namespace":"githubCopilotSessionContinuation","method":"get","args":null}`,
	} {
		res, rerr, err := h.CallRaw(ctxT(t), "remote/invoke", []byte(params))
		if err != nil || rerr != nil {
			t.Fatalf("%s: %v %v", params, err, rerr)
		}
		var env struct {
			OK    bool `json:"ok"`
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(res, &env) != nil || env.OK || !strings.Contains(strings.ToLower(env.Error.Code), "arguments-invalid") &&
			!strings.Contains(env.Error.Code, "ARGUMENTS_INVALID") {
			t.Fatalf("%s = %s, want an arguments-invalid result", params, res)
		}
	}
}

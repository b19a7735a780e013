package server_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/turns"
)

// Helpers of the turn lifecycle's end-to-end tests (prefix turnsX).

const turnsXModel = "gpt-5.4"

// turnsXSession announces a session whose policy is on (born after
// activation, so the creation-time default applies) or off (a seeded
// history, which the default never covers).
func turnsXSession(t *testing.T, h *host.Host, sid string, on bool) {
	t.Helper()
	if on {
		freshSession(t, h, sid)
		return
	}
	born := time.Now().Add(time.Hour).UnixMilli()
	hdr := &hostapi.SessionHeader{CreatedAt: &born, IsSeeded: true}
	h.SetAgent(sid, hdr, "idle")
	turnsXEvent(t, h, sid, "session/created", map[string]any{}, hdr)
}

// turnsXEvent sends one session event.
func turnsXEvent(t *testing.T, h *host.Host, sid, typ string, data any, hdr *hostapi.SessionHeader) {
	t.Helper()
	if _, err := h.SessionEvent(sid, host.Ev(typ, data), hdr); err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
}

func turnsXEndTurn(t *testing.T, h *host.Host, sid string, turn int) {
	t.Helper()
	turnsXEvent(t, h, sid, "turn/end", map[string]any{"turn": turn, "reason": map[string]any{"kind": "completed"}}, nil)
}

// turnsXAdmit sends agent/request and returns the admission or the
// plugin's error.
func turnsXAdmit(t *testing.T, h *host.Host, sid string, turn, step int, rid, account, model string) (*host.Admission, *host.RPCError) {
	t.Helper()
	res, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: sid, Turn: turn, Step: step, RequestID: rid,
		AccountID: account, Config: host.LLMConfig{Provider: "github-copilot-preview", Model: model}})
	return res.Admission, turnsXRPC(t, err)
}

// turnsXChat sends a chat llm/payload of the managed provider.
func turnsXChat(t *testing.T, h *host.Host, sid string, turn, step int, rid string, body []byte) (host.PayloadResult, *host.RPCError) {
	t.Helper()
	return turnsXSend(t, h, host.PayloadParams{RequestID: rid, SessionID: sid, Turn: turn, Step: step,
		Provider: "github-copilot-preview", Model: turnsXModel, Purpose: "chat", Payload: body})
}

// turnsXSummary sends a compaction llm/payload.
func turnsXSummary(t *testing.T, h *host.Host, sid, cid string, turn int, model string, body []byte) (host.PayloadResult, *host.RPCError) {
	t.Helper()
	return turnsXSend(t, h, host.PayloadParams{RequestID: "sum-" + cid, SessionID: sid, Turn: turn, Step: 1,
		Provider: "github-copilot-preview", Model: model, Purpose: "compaction", CompactionID: cid, Payload: body})
}

func turnsXSend(t *testing.T, h *host.Host, p host.PayloadParams) (host.PayloadResult, *host.RPCError) {
	t.Helper()
	res, err := h.Payload(ctxT(t), p)
	return res, turnsXRPC(t, err)
}

// turnsXRPC returns the plugin's JSON-RPC error and fails on any other.
func turnsXRPC(t *testing.T, err error) *host.RPCError {
	t.Helper()
	if err == nil {
		return nil
	}
	var rerr *host.RPCError
	if errors.As(err, &rerr) {
		return rerr
	}
	t.Fatalf("no answer: %v", err)
	return nil
}

// turnsXWantCode fails unless the plugin answered the domain code.
func turnsXWantCode(t *testing.T, what string, rerr *host.RPCError, code string) {
	t.Helper()
	if rerr == nil || rerr.Code != host.CodeDomain || dataCode(rerr) != "COPILOT_CONTINUATION_"+code {
		t.Fatalf("%s: got %v (data.code %q), want %s", what, rerr, dataCode(rerr), code)
	}
}

// turnsXNotices reads the continuity/notices Remote. Being a request, it
// is answered after every notification sent before it was applied.
func turnsXNotices(t *testing.T, h *host.Host, sid string) turns.NoticesView {
	t.Helper()
	res, err := h.RemoteInvoke(ctxT(t), "continuity", "notices", map[string]any{"agentId": sid})
	if err != nil || !res.OK {
		t.Fatalf("notices: %v %+v", err, res.Error)
	}
	var v turns.NoticesView
	if err := json.Unmarshal(res.Value, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// turnsXNotice returns the live notice with id, if any.
func turnsXNotice(t *testing.T, h *host.Host, sid, id string) (turns.Notice, bool) {
	t.Helper()
	for _, n := range turnsXNotices(t, h, sid).Notices {
		if n.ID == id {
			return n, true
		}
	}
	return turns.Notice{}, false
}

// turnsXWaitNotice waits for the continuity.notice event with id whose
// textKey is key, and returns it.
func turnsXWaitNotice(t *testing.T, h *host.Host, id, key string) turns.Notice {
	t.Helper()
	var got turns.Notice
	_, err := h.WaitEvent(ctxT(t), "continuity.notice", func(n host.Notification) bool {
		var args []turns.Notice
		if json.Unmarshal(n.Args, &args) != nil || len(args) != 1 {
			return false
		}
		if args[0].ID == id && args[0].TextKey == key {
			got = args[0]
			return true
		}
		return false
	})
	if err != nil {
		t.Fatalf("no notice %s with %s: %v", id, key, err)
	}
	return got
}

// turnsXRemote invokes a githubCopilotSessionContinuation method.
func turnsXRemote(t *testing.T, h *host.Host, method string, args map[string]any) json.RawMessage {
	t.Helper()
	res, err := h.RemoteInvoke(ctxT(t), "githubCopilotSessionContinuation", method, args)
	if err != nil || !res.OK {
		t.Fatalf("%s: %v %+v", method, err, res.Error)
	}
	return res.Value
}

// turnsXRevision reads the settings revision through the Remote.
func turnsXRevision(t *testing.T, h *host.Host, sid string) int64 {
	t.Helper()
	var v struct {
		Revision int64 `json:"revision"`
	}
	if err := json.Unmarshal(turnsXRemote(t, h, "get", map[string]any{"agentId": sid}), &v); err != nil {
		t.Fatal(err)
	}
	return v.Revision
}

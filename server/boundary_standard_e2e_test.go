package server_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
)

// dshSend sends one event in DSH's shape and returns its event id.
func dshSend(t *testing.T, h *host.Host, sid, typ string, data any) string {
	t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := h.SessionEvent(sid, hostapi.Event{Type: typ, Data: b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(seq, 10)
}

// TestBoundaryReadsStandardEvents (issue 16): managed context from DSH's
// own events, no annotations. A failed tool call followed by a success of
// the same tool with the same arguments: the error is residue superseded
// by the success, which is kept as a witness; a failure nothing answered
// stays as current state. The runtime-context snapshot injected after the
// prompt is never the current request. pin_task pins the prompt of the
// turn it is called in, not the injected message that came after it.
func TestBoundaryReadsStandardEvents(t *testing.T) {
	h := initialized(t, host.Config{DataDir: t.TempDir()}, host.AllCapabilities())
	const sid = "ses-std"
	f := dsh.Format4
	test := dsh.Call{ID: "call_1", Name: "bash", Arguments: `{"command":"go test ./parse/..."}`}
	retry := dsh.Call{ID: "call_2", Name: "bash", Arguments: test.Arguments}
	other := dsh.Call{ID: "call_3", Name: "bash", Arguments: `{"command":"go vet ./..."}`}

	dshSend(t, h, sid, "turn/start", dsh.TurnStart(1))
	task := dshSend(t, h, sid, "user/message", dsh.Prompt("m1", "Make the parser tests pass."))
	dshSend(t, h, sid, "user/message", dsh.RuntimeContext("m2", "Current runtime context. Make everything pass."))
	dshSend(t, h, sid, "tool/call", dsh.ToolCall(1, 1, test))
	failed := dshSend(t, h, sid, "tool/result", f.ToolResult(1, 1, test.ID, "FAIL parse_test.go:12", true))
	dshSend(t, h, sid, "tool/call", dsh.ToolCall(1, 2, other))
	vetFailed := dshSend(t, h, sid, "tool/result", f.ToolResult(1, 2, other.ID, "vet: unused variable", true))
	dshSend(t, h, sid, "tool/call", dsh.ToolCall(1, 3, retry))
	passed := dshSend(t, h, sid, "tool/result", f.ToolResult(1, 3, retry.ID, "ok  parse 0.01s", false))
	dshSend(t, h, sid, "assistant/message", dsh.Assistant(1, 4, "deepseek", "v4", "The parser tests pass now.", nil, 100))
	end := dshSend(t, h, sid, "turn/end", dsh.TurnEnd(1, "completed"))

	v := contRemote(t, h, "boundary", map[string]any{"agentId": sid})
	if got := gjson.GetBytes(v, "throughEventId").Str; got != end {
		t.Fatalf("decision covers %s, want the turn/end %s", got, end)
	}
	if got := gjson.GetBytes(v, "pin.eventId").Str; got != task {
		t.Errorf("pin at %s, want the person's prompt %s", got, task)
	}
	find := func(list, eventID string) gjson.Result {
		for _, it := range gjson.GetBytes(v, list).Array() {
			if it.Get("eventId").Str == eventID {
				return it
			}
		}
		return gjson.Result{}
	}
	if it := find("kept", passed); it.Get("kind").Str != "tool_result" || it.Get("subject").Str != `bash {"command":"go test ./parse/..."}` {
		t.Errorf("the passing run is not kept as a witness: %s\n%s", it.Raw, v)
	}
	if it := find("dropped", failed); it.Get("kind").Str != "error" || it.Get("why").Str != "superseded" || it.Get("supersededBy").Str != passed {
		t.Errorf("the failed run is not dropped as superseded by the passing one: %s\n%s", it.Raw, v)
	}
	if it := find("kept", vetFailed); it.Get("kind").Str != "error" {
		t.Errorf("the unanswered vet failure is not kept as current state: %s\n%s", it.Raw, v)
	}
	for _, it := range gjson.GetBytes(v, "kept").Array() {
		if it.Get("kind").Str == "request" || it.Get("kind").Str == "injected" {
			t.Errorf("injected context kept as %s: %s", it.Get("kind").Str, it.Raw)
		}
	}

	// A new turn replaces the task; pin_task pins that turn's prompt even
	// though injected context came after it.
	dshSend(t, h, sid, "turn/start", dsh.TurnStart(2))
	replaced := dshSend(t, h, sid, "user/message", dsh.Prompt("m3", "Forget the parser; write the CSV exporter."))
	dshSend(t, h, sid, "user/message", dsh.RuntimeContext("m4", "Current runtime context."))
	res, err := h.ToolCall(ctxT(t), host.ToolCallParams{SessionID: sid, Turn: 2, CallID: "call_pin", Name: "pin_task",
		Arguments: map[string]any{"text": "Write the CSV exporter.", "reason": "the user replaced the task"}})
	if err != nil || res.IsError {
		t.Fatalf("pin_task: %v %s", err, res.Structured)
	}
	if got := gjson.GetBytes(res.Structured, "eventId").Str; got != replaced {
		t.Errorf("pin_task pinned event %s, want the turn's prompt %s", got, replaced)
	}
}

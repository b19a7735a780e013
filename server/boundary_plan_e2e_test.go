package server_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// dshTodo is DSH's todo/write data: the agent's whole todo list.
func dshTodo(steps ...[3]string) map[string]any {
	var todos []map[string]any
	for _, s := range steps {
		todos = append(todos, map[string]any{"id": s[0], "content": s[1], "status": s[2]})
	}
	return map[string]any{"todos": todos}
}

// TestDSHTodoIsThePlan (issue 28 item 6): DSH's todo/write is the
// session's plan. Through the real binary, the boundary keeps the latest
// list as the current plan and traces it to the pin (the record's plan:
// event, pin digest, step ids and statuses; the earlier list is a
// superseded plan), a RESEED's query lists it under a header naming the
// pin, and continue_session carries it with transfer.plan "carry" (its
// exact data, revision its seq), which used to be refused with "the
// predecessor has no plan".
func TestDSHTodoIsThePlan(t *testing.T) {
	h := initialized(t, host.Config{DataDir: t.TempDir()}, host.AllCapabilities())
	const sid = "ses-todo"
	f := dsh.Format4
	c := dsh.Call{ID: "call_1", Name: "bash", Arguments: `{"command":"go test ./auth/..."}`}
	dshSend(t, h, sid, "turn/start", dsh.TurnStart(1))
	dshSend(t, h, sid, "user/message", dsh.Prompt("m1", "Make the login tests pass in auth/."))
	first := dshSend(t, h, sid, "todo/write", dshTodo([3]string{"t1", "Run the auth tests", "in_progress"}, [3]string{"t2", "Fix the token check", "pending"}))
	dshSend(t, h, sid, "assistant/message", dsh.Assistant(1, 1, "deepseek", "v4", "", []dsh.Call{c}, 100))
	dshSend(t, h, sid, "tool/call", dsh.ToolCall(1, 1, c))
	dshSend(t, h, sid, "tool/result", f.ToolResult(1, 1, c.ID, strings.Repeat("FAIL token_test.go:9 expired token accepted\n", 900), true))
	plan := dshSend(t, h, sid, "todo/write", dshTodo([3]string{"t1", "Run the auth tests", "completed"}, [3]string{"t2", "Fix the token check", "in_progress"}))
	dshSend(t, h, sid, "assistant/message", dsh.Assistant(1, 2, "deepseek", "v4", "The token check accepts expired tokens.", nil, 120))
	end := dshSend(t, h, sid, "turn/end", dsh.TurnEnd(1, "completed"))
	rec := bndAwait(t, h, sid, atoi(t, end), "turn_end")

	if got := gjson.GetBytes(rec, "plan"); got.Get("eventId").Str != plan || got.Get("pinDigest").Str != gjson.GetBytes(rec, "pin.digest").Str ||
		got.Get("steps.#").Int() != 2 || got.Get("steps.0.id").Str != "t1" || got.Get("steps.0.status").Str != "completed" ||
		got.Get("steps.1.status").Str != "in_progress" || strings.Contains(got.Raw, "token check") {
		t.Errorf("the record does not trace the latest todo list to the pin: %s", got.Raw)
	}
	if !bndHas(bndRefs(rec, "kept"), "plan::current_plan@"+plan) || !bndHas(bndRefs(rec, "dropped"), "plan::superseded@"+first) {
		t.Errorf("kept %v dropped %v", bndRefs(rec, "kept"), bndRefs(rec, "dropped"))
	}
	if gjson.GetBytes(rec, "decision").Str == "RESEED" {
		q := gjson.GetBytes(rec, "reseed.projection.query").Str
		if !gjson.GetBytes(rec, "reseed.complete").Bool() || !strings.Contains(q, "Plan [event "+plan+", pin "+gjson.GetBytes(rec, "pin.digest").Str+"]:") ||
			!strings.Contains(q, "- [in_progress] t2: Fix the token check") {
			t.Errorf("the RESEED query does not carry the traced plan: %s\n%s", gjson.GetBytes(rec, "reseed").Raw, q)
		}
	} else {
		t.Errorf("want a RESEED (the failure's output dominates): %s %s", gjson.GetBytes(rec, "decision").Str, gjson.GetBytes(rec, "reason").Str)
	}

	dshSend(t, h, sid, "turn/start", dsh.TurnStart(2))
	dshSend(t, h, sid, "user/message", dsh.Prompt("m2", "Continue this in a fresh session."))
	cont := dsh.Call{ID: "call-cont", Name: "continue_session", Arguments: `{}`}
	dshSend(t, h, sid, "assistant/message", dsh.Assistant(2, 1, "deepseek", "v4", "", []dsh.Call{cont}, 100))
	args := map[string]any{
		"reason":   "phase_change",
		"title":    "Login tests",
		"handoff":  map[string]any{"purpose": "Make the login tests pass", "currentRequest": "Continue in a fresh session"},
		"sources":  []any{map[string]any{"kind": "session_event", "sessionId": sid, "eventId": plan, "relevance": "the plan"}},
		"transfer": map[string]any{"plan": "carry"},
	}
	res, err := h.ToolCall(ctxT(t), host.ToolCallParams{SessionID: sid, Turn: 2, CallID: cont.ID, Name: "continue_session", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var got contContinued
	contOK(t, "continue_session", res, &got)
	m := contRemote(t, h, "manifest", map[string]any{"manifestId": got.ManifestID})
	item := gjson.GetBytes(m, `state.#(kind=="plan")`)
	if item.Get("action").Str != "carry" || item.Get("eventId").Str != plan || item.Get("revision").Str != plan ||
		item.Get("data.todos.1.status").Str != "in_progress" {
		t.Errorf("the manifest does not carry DSH's todo list as the plan: %s", gjson.GetBytes(m, "state").Raw)
	}
}

package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// dshTurn drives one DSH turn in format 4: the person's prompt, the tool
// calls with their results (an output starting "FAIL" is a failure), the
// final answer, and turn/end completed. It returns the prompt's event id
// and the turn's decision record.
type dshTurn struct {
	prompt  string
	calls   []string // bash commands
	outputs []string
	answer  string
}

func runDSHTurn(t *testing.T, h *host.Host, sid string, n int, tr dshTurn) (string, json.RawMessage) {
	t.Helper()
	f := dsh.Format4
	dshSend(t, h, sid, "turn/start", dsh.TurnStart(n))
	prompt := dshSend(t, h, sid, "user/message", dsh.Prompt(fmt.Sprintf("m%d", n), tr.prompt))
	dshSend(t, h, sid, "user/message", dsh.RuntimeContext(fmt.Sprintf("rc%d", n), "Runtime context: cwd /work."))
	for i, cmd := range tr.calls {
		c := dsh.Call{ID: fmt.Sprintf("call_%d_%d", n, i), Name: "bash", Arguments: fmt.Sprintf(`{"command":%q}`, cmd)}
		dshSend(t, h, sid, "assistant/message", dsh.Assistant(n, i+1, "deepseek", "v4", "", []dsh.Call{c}, 100))
		dshSend(t, h, sid, "tool/call", dsh.ToolCall(n, i+1, c))
		dshSend(t, h, sid, "tool/result", f.ToolResult(n, i+1, c.ID, tr.outputs[i], strings.HasPrefix(tr.outputs[i], "FAIL")))
	}
	dshSend(t, h, sid, "assistant/message", dsh.Assistant(n, len(tr.calls)+1, "deepseek", "v4", tr.answer, nil, 120))
	end := dshSend(t, h, sid, "turn/end", dsh.TurnEnd(n, "completed"))
	return prompt, bndAwait(t, h, sid, atoi(t, end), "turn_end")
}

func refsOf(rec json.RawMessage, list string) []string { return bndRefs(rec, list) }

// TestReseedQueryIsCompleteInFact (issue 28 items 5 and 8, narrowing and
// negation): over DSH's own events through the real binary,
//   - the person's "Don't worry about the flaky test failures." and "Only
//     touch files under auth/." are constraints of the same pin, appended
//     (task_sharpened);
//   - the RESEED's query carries the current request's text, the negation
//     as positive scope, the witnesses of every turn since the pin, and is
//     complete only with all of that in its text.
func TestReseedQueryIsCompleteInFact(t *testing.T) {
	h := initialized(t, host.Config{DataDir: t.TempDir()}, host.AllCapabilities())
	const sid = "ses-reseed-query"
	runDSHTurn(t, h, sid, 1, dshTurn{prompt: "Make the login tests pass in auth/.", calls: []string{"go test ./auth/..."},
		outputs: []string{"ok  auth 0.02s"}, answer: "The login tests pass: go test ./auth/... is ok."})
	negation, rec2 := runDSHTurn(t, h, sid, 2, dshTurn{prompt: "Don't worry about the flaky test failures.",
		calls: []string{"cat auth/flaky.txt"}, outputs: []string{"TestRefresh is flaky on CI"}, answer: "Noted: TestRefresh is flaky."})
	narrowing, rec3 := runDSHTurn(t, h, sid, 3, dshTurn{prompt: "Only touch files under auth/.", answer: "Understood."})
	for i, c := range []struct {
		rec json.RawMessage
		at  string
	}{{rec2, negation}, {rec3, narrowing}} {
		if !bndHas(refsOf(c.rec, "kept"), "constraint:person:stable@"+c.at) {
			t.Errorf("turn %d: the person's constraint is not kept: %v", i+2, refsOf(c.rec, "kept"))
		}
		if d, r := gjson.GetBytes(c.rec, "decision").Str, gjson.GetBytes(c.rec, "reason").Str; d != "APPEND" || r != "task_sharpened" {
			t.Errorf("turn %d: %s %s, want APPEND task_sharpened (a narrowing sharpens the same pin)", i+2, d, r)
		}
	}

	// A follow-up with a large read makes reconstruction cheaper: RESEED.
	request := "Now add a test for the expired-token case."
	req, rec4 := runDSHTurn(t, h, sid, 4, dshTurn{prompt: request, calls: []string{"cat auth/token.go"},
		outputs: []string{strings.Repeat("package auth // token handling\n", 2000)}, answer: "Read token.go."})
	if gjson.GetBytes(rec4, "decision").Str != "RESEED" || !gjson.GetBytes(rec4, "reseed.complete").Bool() {
		t.Fatalf("turn 4: want a complete RESEED, got %s", rec4)
	}
	q := gjson.GetBytes(rec4, "reseed.projection.query").Str
	for _, want := range []string{
		"Current request [event " + req + "]:\n~~~\n" + request + "\n~~~",
		"Answer the current request (event " + req + ", quoted above under \"Current request\")",
		"The flaky test failures are out of scope.",
		"Only touch files under auth/.",
		"tool bash {\"command\":\"go test ./auth/...\"} succeeded",
		"tool bash {\"command\":\"cat auth/flaky.txt\"} succeeded",
		"tool bash {\"command\":\"cat auth/token.go\"} succeeded",
		"outcome of a completed turn",
	} {
		if !strings.Contains(q, want) {
			t.Errorf("the query lacks %q:\n%s", want, q)
		}
	}
	if strings.Contains(strings.ToLower(q), "don't worry") {
		t.Errorf("the query keeps a negation or a superseded failure:\n%s", q)
	}
	if got := gjson.GetBytes(rec4, "reseed.projection.handoff.currentRequest").Str; got != request {
		t.Errorf("handoff.currentRequest %q, want the request's text", got)
	}
}

// TestReplacementInPlainWordsIsANewQuery (issue 28 item 8): a person who
// replaces the task in their own words (English or Chinese) changes the
// pin at the next boundary — RESEED task_changed, pin source
// replacement_message at that message, the old task's state before the
// pin — and pin_task stays authoritative: when the agent restates the task
// in the same turn, its pin is the one the boundary reads.
func TestReplacementInPlainWordsIsANewQuery(t *testing.T) {
	for _, c := range []struct {
		name, replacement string
		pinTask           bool
	}{
		{"english", "Forget the login test. Write the Q3 release notes instead.", false},
		{"chinese", "别管登录测试了，改成写第三季度的发布说明。", false},
		{"pin_task wins", "Forget the login test. Write the Q3 release notes instead.", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := initialized(t, host.Config{DataDir: t.TempDir()}, host.AllCapabilities())
			sid := "ses-replace-" + strings.ReplaceAll(c.name, " ", "-")
			task, rec1 := runDSHTurn(t, h, sid, 1, dshTurn{prompt: "Make the login tests pass in auth/.",
				calls: []string{"go test ./auth/..."}, outputs: []string{"ok  auth 0.02s"}, answer: "The login tests pass."})
			if gjson.GetBytes(rec1, "pin.eventId").Str != task {
				t.Fatalf("turn 1 pin %s, want %s", gjson.GetBytes(rec1, "pin.eventId").Str, task)
			}
			dshSend(t, h, sid, "turn/start", dsh.TurnStart(2))
			at := dshSend(t, h, sid, "user/message", dsh.Prompt("m2", c.replacement))
			if c.pinTask {
				res, err := h.ToolCall(ctxT(t), host.ToolCallParams{SessionID: sid, Turn: 2, CallID: "call-pin", Name: "pin_task",
					Arguments: map[string]any{"text": "Write the Q3 release notes.", "reason": "the person replaced the login task"}})
				if err != nil || res.IsError {
					t.Fatalf("pin_task: %v %s", err, res.Structured)
				}
			}
			dshSend(t, h, sid, "assistant/message", dsh.Assistant(2, 1, "deepseek", "v4", "Starting on the release notes.", nil, 100))
			end := dshSend(t, h, sid, "turn/end", dsh.TurnEnd(2, "completed"))
			rec := bndAwait(t, h, sid, atoi(t, end), "turn_end")
			wantSource := "replacement_message"
			if c.pinTask {
				wantSource = "pin_task"
			}
			if d, r := gjson.GetBytes(rec, "decision").Str, gjson.GetBytes(rec, "reason").Str; d != "RESEED" || r != "task_changed" {
				t.Errorf("%s %s, want RESEED task_changed: %s", d, r, rec)
			}
			if got := gjson.GetBytes(rec, "pin.source").Str; got != wantSource || gjson.GetBytes(rec, "pin.eventId").Str != at {
				t.Errorf("pin %s, want source %s at event %s", gjson.GetBytes(rec, "pin").Raw, wantSource, at)
			}
			if !bndHas(refsOf(rec, "dropped"), "request::before_pin@"+task) {
				t.Errorf("the replaced task is not dropped as before the pin: %v", refsOf(rec, "dropped"))
			}
			q := gjson.GetBytes(rec, "reseed.projection.query").Str
			if strings.Contains(q, "Make the login tests pass") {
				t.Errorf("the new query still carries the replaced task:\n%s", q)
			}
			// A later follow-up appends to the new pin; it does not pair it
			// with the old task.
			_, rec3 := runDSHTurn(t, h, sid, 3, dshTurn{prompt: "Only cover the features merged in Q3.", answer: "Understood."})
			if gjson.GetBytes(rec3, "pin.digest").Str != gjson.GetBytes(rec, "pin.digest").Str || gjson.GetBytes(rec3, "reason").Str != "task_sharpened" {
				t.Errorf("turn 3: %s %s on pin %s", gjson.GetBytes(rec3, "decision").Str, gjson.GetBytes(rec3, "reason").Str, gjson.GetBytes(rec3, "pin").Raw)
			}
		})
	}
}

// TestFailedAttemptsAreResidueOverDSHEvents (issue 28 item 7): six
// attempts at one test target with different flags, five failing: the
// five failures are residue superseded by the next attempt, none is kept
// as needed for the next action, the passing run is the witness, and the
// stale residue now outweighs the kept state, so the boundary reseeds with
// residue_dominates.
func TestFailedAttemptsAreResidueOverDSHEvents(t *testing.T) {
	h := initialized(t, host.Config{DataDir: t.TempDir()}, host.AllCapabilities())
	const sid = "ses-attempts"
	var cmds, outs []string
	for i, fl := range []string{"", "-count=1", "-run TestLogin", "-v", "-race", "-run TestLogin -v"} {
		cmds = append(cmds, "go test "+fl+" ./auth/...")
		outs = append(outs, fmt.Sprintf("FAIL login_test.go:%d %s", 10+i, strings.Repeat("expected token, got nil\n", 40)))
	}
	outs[5] = "ok  auth 0.02s"
	_, rec := runDSHTurn(t, h, sid, 1, dshTurn{prompt: "Make the login tests pass in auth/.", calls: cmds, outputs: outs,
		answer: "The login tests pass: go test ./auth/... is ok."})
	superseded := 0
	for _, r := range refsOf(rec, "dropped") {
		if strings.HasPrefix(r, "error:") && strings.Contains(r, ":superseded@") {
			superseded++
		}
	}
	if superseded != 5 {
		t.Errorf("%d failed attempts are residue, want 5: %v", superseded, refsOf(rec, "dropped"))
	}
	for _, r := range refsOf(rec, "kept") {
		if strings.HasPrefix(r, "error:") {
			t.Errorf("a superseded failure is still kept: %s", r)
		}
	}
	if !strings.Contains(strings.Join(refsOf(rec, "kept"), " "), `tool_result:bash {"command":"go test -run TestLogin -v ./auth/..."}:stable@`) {
		t.Errorf("the passing run is not the witness: %v", refsOf(rec, "kept"))
	}
	if r := gjson.GetBytes(rec, "reason").Str; r != "residue_dominates" {
		t.Errorf("reason %s, want residue_dominates: %s", r, gjson.GetBytes(rec, "numbers").Raw)
	}
	if !gjson.GetBytes(rec, "reseed.complete").Bool() {
		t.Errorf("the reseed is not complete: %s", gjson.GetBytes(rec, "reseed").Raw)
	}
}

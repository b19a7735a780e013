package server_test

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// TestBoundaryKeepsTheConfirmedOutcome: through the real binary with DSH's
// events, the final answer of a completed turn whose tool results
// succeeded is kept as the turn's outcome (a stable witness at the
// answer's event); the answer of a turn whose test run failed stays
// narration and is dropped.
func TestBoundaryKeepsTheConfirmedOutcome(t *testing.T) {
	h := initialized(t, host.Config{DataDir: t.TempDir()}, host.AllCapabilities())
	const sid = "ses-outcome"
	f := dsh.Format4
	turn := func(n int, output string, failed bool, answer string) (string, json.RawMessage) {
		c := dsh.Call{ID: "call_" + string(rune('a'+n)), Name: "bash", Arguments: `{"command":"go test ./parse/..."}`}
		dshSend(t, h, sid, "turn/start", dsh.TurnStart(n))
		if n == 1 {
			dshSend(t, h, sid, "user/message", dsh.Prompt("m1", "Make the parser tests pass."))
		} else {
			dshSend(t, h, sid, "user/message", dsh.Prompt("m2", "Now make the lexer tests pass too."))
		}
		dshSend(t, h, sid, "assistant/message", dsh.Assistant(n, 1, "deepseek", "v4", "Running the tests.", []dsh.Call{c}, 100))
		dshSend(t, h, sid, "tool/call", dsh.ToolCall(n, 1, c))
		dshSend(t, h, sid, "tool/result", f.ToolResult(n, 1, c.ID, output, failed))
		at := dshSend(t, h, sid, "assistant/message", dsh.Assistant(n, 2, "deepseek", "v4", answer, nil, 120))
		end := dshSend(t, h, sid, "turn/end", dsh.TurnEnd(n, "completed"))
		return at, bndAwait(t, h, sid, atoi(t, end), "turn_end")
	}
	named := func(rec json.RawMessage, eventID string) string {
		for _, list := range []string{"kept", "dropped"} {
			for _, it := range gjson.GetBytes(rec, list).Array() {
				if it.Get("eventId").Str == eventID && it.Get("index").Int() == 0 {
					return list + " " + it.Get("kind").Str + " " + it.Get("why").Str
				}
			}
		}
		return ""
	}
	at, rec := turn(1, "ok  parse 0.01s", false, "The parser tests pass now: go test ./parse/... is ok.")
	if got := named(rec, at); got != "kept outcome stable" {
		t.Errorf("turn 1's answer is %q, want kept outcome stable\n%s", got, rec)
	}
	at, rec = turn(2, "FAIL lex_test.go:9", true, "The lexer tests still fail at lex_test.go:9.")
	if got := named(rec, at); got != "dropped narration narration" {
		t.Errorf("turn 2's answer after a failed run is %q, want dropped narration\n%s", got, rec)
	}
}

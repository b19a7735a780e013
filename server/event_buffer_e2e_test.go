package server_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/boundary"
	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// TestSessionEventBufferCarriesTheNextFrame: a session event's frame
// buffer goes back to the wire's pool once the event is applied, and the
// next large frame is read into it, overwriting it (in the race build the
// wire also poisons it on release). What the features kept of the event
// must be their own copies: the person's 5 MiB prompt, whose buffer the
// 5 MiB tool/result behind it overwrites, is still the pin, with the
// digest of its exact text, and the result still settles its call.
func TestSessionEventBufferCarriesTheNextFrame(t *testing.T) {
	h := initialized(t, host.Config{DataDir: t.TempDir()}, host.AllCapabilities())
	const sid = "ses-recycled"
	var b strings.Builder
	b.WriteString("Make the parser tests pass.")
	for i := 0; b.Len() < 5<<20; i++ {
		b.WriteString(" Keep rule " + strconv.Itoa(i) + " of the grammar as it is.")
	}
	prompt := b.String()
	call := dsh.Call{ID: "call_1", Name: "bash", Arguments: `{"command":"go test ./parse/..."}`}
	output := "FAIL parse_test.go:12\n" + strings.Repeat("--- FAIL: TestGrammar (0.00s)\n", (5<<20)/30)

	dshSend(t, h, sid, "turn/start", dsh.TurnStart(1))
	task := dshSend(t, h, sid, "user/message", dsh.Prompt("m1", prompt))
	dshSend(t, h, sid, "tool/call", dsh.ToolCall(1, 1, call))
	failed := dshSend(t, h, sid, "tool/result", dsh.Format4.ToolResult(1, 1, call.ID, output, true))
	dshSend(t, h, sid, "assistant/message", dsh.Assistant(1, 2, "deepseek", "v4", "The parser still fails.", nil, 100))
	end := dshSend(t, h, sid, "turn/end", dsh.TurnEnd(1, "completed"))

	v := contRemote(t, h, "boundary", map[string]any{"agentId": sid})
	if got := gjson.GetBytes(v, "throughEventId").Str; got != end {
		t.Fatalf("decision covers %s, want the turn/end %s", got, end)
	}
	seq, _ := strconv.ParseInt(task, 10, 64)
	pin := gjson.GetBytes(v, "pin")
	if pin.Get("eventId").Str != task || !pin.Get("recoverable").Bool() || pin.Get("digest").Str != boundary.Digest(seq, prompt) {
		t.Errorf("the pin is not the prompt's exact text at %s (digest %s): %s", task, boundary.Digest(seq, prompt), pin.Raw)
	}
	var found bool
	for _, it := range gjson.GetBytes(v, "kept").Array() {
		if it.Get("eventId").Str == failed {
			found = true
			if it.Get("kind").Str != "error" || it.Get("subject").Str != `bash {"command":"go test ./parse/..."}` {
				t.Errorf("the failed run is not kept as the error of its call: %s", it.Raw)
			}
		}
	}
	if !found {
		t.Errorf("the failed run %s is not kept: %s", failed, v)
	}
}

package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
)

// TestBoundaryCheckpointShadowsItsRange: through the real binary, in both
// formats, a compaction checkpoint replaces only the events its surfaceOp
// names. The decision after it no longer names the replaced failure and
// narration, and still names what came after the range: the unanswered
// vet failure (the state the next action needs) and the later narration.
func TestBoundaryCheckpointShadowsItsRange(t *testing.T) {
	for _, f := range []dsh.Format{dsh.Format0, dsh.Format4} {
		h := initialized(t, host.Config{DataDir: t.TempDir()}, host.AllCapabilities())
		const sid = "ses-shadow"
		a := dsh.Call{ID: "call_a", Name: "bash", Arguments: `{"command":"go test ./a"}`}
		b := dsh.Call{ID: "call_b", Name: "bash", Arguments: `{"command":"go vet ./b"}`}
		dshSend(t, h, sid, "turn/start", dsh.TurnStart(1))
		dshSend(t, h, sid, "user/message", dsh.Prompt("m1", "Make a and b pass."))
		first := dshSend(t, h, sid, "tool/call", dsh.ToolCall(1, 1, a))
		failedA := dshSend(t, h, sid, "tool/result", f.ToolResult(1, 1, a.ID, "FAIL a_test.go:3", true))
		last := dshSend(t, h, sid, "assistant/message", dsh.Assistant(1, 1, "p", "m", strings.Repeat("Looking at a. ", 40), nil, 10))
		dshSend(t, h, sid, "tool/call", dsh.ToolCall(1, 2, b))
		failedB := dshSend(t, h, sid, "tool/result", f.ToolResult(1, 2, b.ID, "vet: unused x", true))
		later := dshSend(t, h, sid, "assistant/message", dsh.Assistant(1, 2, "p", "m", "Now b.", nil, 10))
		cp, err := json.Marshal(f.Checkpoint("m9", "cmp1", "Summary: a was looked at."))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.SessionEvent(sid, hostapi.Event{Type: "user/message", Data: cp, SurfaceOp: f.Replace(atoi(t, first), atoi(t, last))}, nil); err != nil {
			t.Fatal(err)
		}
		end := dshSend(t, h, sid, "turn/end", dsh.TurnEnd(1, "completed"))
		rec := bndAwait(t, h, sid, atoi(t, end), "turn_end")
		named := map[string]string{}
		for _, list := range []string{"kept", "dropped"} {
			for _, it := range gjson.GetBytes(rec, list).Array() {
				named[it.Get("eventId").Str] = list + " " + it.Get("kind").Str
			}
		}
		if named[failedA] != "" || named[last] != "" {
			t.Errorf("format %d: replaced events still named: %v\n%s", f, named, rec)
		}
		if named[failedB] != "kept error" || named[later] != "dropped narration" {
			t.Errorf("format %d: events after the range: vet %q, narration %q\n%s", f, named[failedB], named[later], rec)
		}
	}
}

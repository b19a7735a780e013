package boundary

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/hostapi"
)

// TestObserveKeepsNoBytesOfTheEvent: the plugin applies a session event
// from its frame's buffer and then gives the buffer back for the next
// frame (server/events.go), so what the session state keeps must be
// copies. Every event of a DSH stream is applied from one buffer that is
// overwritten before the next event lands in it, as the wire reuses it;
// the state must equal one built from events that are never overwritten.
func TestObserveKeepsNoBytesOfTheEvent(t *testing.T) {
	f := dsh.Format4
	test := dsh.Call{ID: "call_1", Name: "bash", Arguments: `{"command":"go test ./parse/..."}`}
	retry := dsh.Call{ID: "call_2", Name: "bash", Arguments: test.Arguments}
	long := strings.Repeat("ok   \tgithub.com/example/pkg\t0.1s\n", 4096)
	cid := "cmp-1"
	type event struct {
		typ       string
		data      any
		surfaceOp json.RawMessage
	}
	stream := []event{
		{typ: EventSessionCreated, data: map[string]any{}},
		{typ: EventTurnStart, data: dsh.TurnStart(1)},
		{typ: EventUserMessage, data: dsh.Prompt("m1", "Make the parser tests pass, all of them.")},
		{typ: EventUserMessage, data: dsh.RuntimeContext("m2", "cwd: /work")},
		{typ: EventRequestContext, data: dsh.RequestContext("deepseek", "v4", 128000)},
		{typ: EventAssistantMessage, data: dsh.Assistant(1, 1, "deepseek", "v4", "Running the tests.", []dsh.Call{test}, 900)},
		{typ: EventToolCall, data: dsh.ToolCall(1, 1, test)},
		{typ: EventToolResult, data: f.ToolResult(1, 1, test.ID, "FAIL parse_test.go:12: want 3, got 4\n"+long, true)},
		{typ: EventToolCall, data: dsh.ToolCall(1, 2, retry)},
		{typ: EventToolResult, data: f.ToolResult(1, 2, retry.ID, long, false)},
		{typ: EventToolResult, data: map[string]any{"callId": "c9", "isError": true, "name": "go_build",
			"kind": "build", "subject": "./...", "passed": false, "summary": "build failed: undefined: x", "output": long}},
		{typ: EventTodoWrite, data: map[string]any{"todos": []any{map[string]any{"id": "a", "content": "Fix the parser", "status": "in_progress"}}}},
		{typ: EventAssistantMessage, data: map[string]any{"turn": 1, "step": 3, "text": "Done.",
			"annotations": []any{map[string]any{"kind": "decision", "subject": "parser", "text": "keep the table-driven parser"}}}},
		{typ: EventUsage, data: map[string]any{"inputTokens": 1200, "contextWindow": 128000}},
		{typ: EventTurnEnd, data: dsh.TurnEnd(1, "completed")},
		{typ: EventTurnStart, data: dsh.TurnStart(2)},
		{typ: EventUserMessage, data: dsh.Prompt("m3", "Now make the lexer tests pass.")},
		{typ: EventUserMessage, data: f.Checkpoint("m4", cid, "Summary: the parser passes."), surfaceOp: f.Replace(1, 14)},
	}
	var borrowed, kept sessionState
	var buf []byte
	for seq, e := range stream {
		data, err := json.Marshal(e.data)
		if err != nil {
			t.Fatal(err)
		}
		// The frame: its members are slices of buf, as the envelope
		// reader cuts them.
		buf = append(append(append(append(buf[:0], `{"time":1,"surfaceOp":`...), orNull(e.surfaceOp)...), `,"data":`...), data...)
		dataAt := len(buf) - len(data)
		ev := hostapi.Event{Type: e.typ, Seq: int64(seq), Time: buf[8:9], Data: buf[dataAt:len(buf):len(buf)]}
		if e.surfaceOp != nil {
			ev.SurfaceOp = buf[len(`{"time":1,"surfaceOp":`) : len(`{"time":1,"surfaceOp":`)+len(e.surfaceOp)]
		}
		own := hostapi.Event{Type: e.typ, Seq: int64(seq), Time: json.RawMessage("1"), Data: bytes.Clone(data), SurfaceOp: bytes.Clone(e.surfaceOp)}
		borrowed.apply(ev)
		kept.apply(own)
		// The buffer carries the next frame.
		for i := range buf {
			buf[i] = 0xFF
		}
	}
	if !reflect.DeepEqual(&borrowed, &kept) {
		t.Fatalf("the state applied from a reused buffer differs from one applied from copies:\nreused: %+v\ncopies: %+v", &borrowed, &kept)
	}
	// The stream must have given the state something to keep, or the
	// comparison proves nothing.
	if kept.firstUser == nil || len(kept.view) < 2 || len(kept.pending) < 4 || len(kept.shadows) != 1 || kept.usage == nil {
		t.Fatalf("the stream left little state: %+v", &kept)
	}
	var texts int
	for _, it := range append(kept.view, kept.pending...) {
		if it.Text != "" {
			texts++
		}
	}
	if texts < 3 {
		t.Fatalf("only %d items with text: %+v", texts, kept.view)
	}
}

func orNull(b []byte) []byte {
	if b == nil {
		return []byte("null")
	}
	return b
}

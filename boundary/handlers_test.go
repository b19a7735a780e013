package boundary

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

func TestPinTaskTool(t *testing.T) {
	ctx := context.Background()
	s := newService(t, openDB(t, t.TempDir()), Options{})
	call := func(args string, eventID int64) (ToolResult, error) {
		return s.CallTool(ctx, ToolCall{SessionID: sid, CallID: "call_1", Name: ToolPinTask, Arguments: json.RawMessage(args), EventID: eventID})
	}
	// Before any user message there is nothing to pin to.
	res, err := call(`{"text":"Write the exporter.","reason":"the user changed the task"}`, 0)
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content[0].Text, diag.PinEventUnknown) {
		t.Fatalf("pin without a user message: %+v %v", res, err)
	}
	s.Observe(sid, created(1))
	s.Observe(sid, user(2, "Write the exporter, not the parser."))
	rows := []struct {
		args string
		code string
	}{
		{`{"text":"Write the exporter."}`, diag.BoundaryArgumentsInvalid},
		{`{"text":"Write the exporter.","reason":"r","extra":true}`, diag.BoundaryArgumentsInvalid},
		{`[]`, diag.BoundaryArgumentsInvalid},
		{`{"text":"   ","reason":"r"}`, diag.PinInvalid},
		{`{"text":"t","reason":"\n\t"}`, diag.PinInvalid},
	}
	for _, r := range rows {
		res, err := call(r.args, 0)
		if err != nil || !res.IsError || !strings.HasPrefix(res.Content[0].Text, r.code) {
			t.Errorf("%s: %+v %v, want isError %s", r.args, res, err, r.code)
		}
	}
	if res, err := call(`{"text":"Write the exporter.","reason":"r"}`, 9); err != nil || !res.IsError {
		t.Errorf("an event not yet seen was accepted: %+v %v", res, err)
	}
	res, err = call(`{"text":"Write the exporter.","reason":"the user changed the task"}`, 0)
	if err != nil || res.IsError {
		t.Fatalf("pin_task: %+v %v", res, err)
	}
	if err := validate(t, "tool/pin_task.structured", res.Structured); err != nil {
		t.Errorf("structured result: %v", err)
	}
	if got := res.Structured.(PinTaskResult); got.Digest != Digest(2, "Write the exporter.") || got.EventID != "2" {
		t.Errorf("structured %+v", got)
	}
	if _, err := s.CallTool(ctx, ToolCall{SessionID: sid, Name: "continue_session"}); !diag.Has(err, diag.BoundaryUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestBoundaryRemote(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	s := newService(t, db, Options{})
	if _, err := s.Decided(ctx, sid); !diag.Has(err, diag.BoundaryNotDecided) {
		t.Errorf("before any decision: %v, want %s", err, diag.BoundaryNotDecided)
	}
	d := runStep(t, s, db, firstTurn, Decision{})
	v, err := s.Decided(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, "remote/continuity/boundary.value", v); err != nil {
		t.Errorf("value: %v", err)
	}
	got, _ := json.Marshal(v)
	want, _ := json.Marshal(d)
	if string(got) != string(want) {
		t.Errorf("the Remote serves\n%s\nnot the decision\n%s", got, want)
	}
}

func TestDecideRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	s := newService(t, openDB(t, t.TempDir()), Options{})
	if _, err := s.Decide(ctx, sid, "idle"); !diag.Has(err, diag.BoundaryTriggerInvalid) {
		t.Errorf("bad trigger: %v", err)
	}
	if _, err := s.Decide(ctx, "bad\x00id", TurnEnd); !diag.Has(err, diag.BoundaryArgumentsInvalid) {
		t.Errorf("bad session id: %v", err)
	}
	if _, err := s.PinTask(ctx, sid, 1, strings.Repeat("a", MaxPinTextBytes+1), "r"); !diag.Has(err, diag.PinInvalid) {
		t.Errorf("oversized pin: %v", err)
	}
}

// TestStoreFailureLosesNothing: when the store fails, Decide reports
// CONTINUITY_BOUNDARY_STORE_FAILED and keeps the pending witnesses.
func TestStoreFailureLosesNothing(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	s := newService(t, db, Options{})
	for _, e := range firstTurn.events {
		s.Observe(sid, e)
	}
	s.Observe(sid, testRun(5, "pkg/parse", true, "ok", 10))
	db.Close()
	if _, err := s.Decide(ctx, sid, TurnEnd); !diag.Has(err, diag.BoundaryStoreFailed) {
		t.Fatalf("decide on a closed store: %v", err)
	}
	if n := len(s.state(sid).pending); n != 2 {
		t.Errorf("pending witnesses %d after a failed decision, want 2", n)
	}
	if _, _, err := s.Latest(ctx, sid); !diag.Has(err, diag.BoundaryStoreFailed) {
		t.Errorf("latest on a closed store: %v", err)
	}
}

func TestUnderPressure(t *testing.T) {
	ctx := context.Background()
	s := newService(t, openDB(t, t.TempDir()), Options{PressureRatio: 0.5})
	for _, e := range firstTurn.events {
		s.Observe(sid, e)
	}
	s.Observe(sid, usage(5, 40, 100))
	if s.UnderPressure(sid) {
		t.Error("40% of the window is pressure at ratio 0.5")
	}
	s.Observe(sid, usage(6, 60, 100))
	if !s.UnderPressure(sid) {
		t.Error("60% of the window is not pressure at ratio 0.5")
	}
	if _, err := s.Decide(ctx, sid, ContextPressure); err != nil {
		t.Fatal(err)
	}
	if s.UnderPressure(sid) {
		t.Error("a decided usage event still reports pressure")
	}
}

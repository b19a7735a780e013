package server_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// Issue 28 #10 (seed 000, phase 3): when the successor recalls a source
// its projection left out, again and again, each recall is counted per
// omitted source and the handoff inspector shows the counts; a recall of
// an included range counts nothing.
func TestDSHRecallsOfOmittedSourcesAreCounted(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	s := dshHOpen(t, h, "sess-audit", false)
	s.prompt(t, 1, "Audit every importer module.")
	first := s.seq
	for i := 0; i < contBigTurns; i++ {
		s.event(t, "assistant/message", dsh.Assistant(1, 1, "github-copilot-preview", turnsXModel,
			fmt.Sprintf("Module %02d: %s", i, strings.Repeat("findings ", 660)), nil, 1200))
	}
	last := s.seq - 1
	s.event(t, "turn/end", dsh.TurnEnd(1, "completed"))
	person := s.prompt(t, 2, "Now write the migration plan from the audit.")
	s.event(t, "assistant/message", dsh.Assistant(2, 1, "github-copilot-preview", turnsXModel, "",
		[]dsh.Call{{ID: "call-cont-audit", Name: "continue_session", Arguments: `{}`}}, 1500))
	res, err := h.ToolCall(ctxT(t), host.ToolCallParams{SessionID: s.id, Turn: 2, CallID: "call-cont-audit", Name: "continue_session",
		Arguments: map[string]any{"reason": "phase_change", "title": "Migration plan",
			"handoff": map[string]any{"purpose": "write the migration plan", "currentRequest": "write the migration plan from the audit"},
			"sources": []any{map[string]any{"kind": "session_events", "sessionId": s.id, "fromEventId": strconv.FormatInt(first, 10),
				"toEventId": strconv.FormatInt(last, 10), "relevance": "the audit findings"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var out contContinued
	contOK(t, "continue_session", res, &out)
	m := contRemote(t, h, "manifest", map[string]any{"manifestId": out.ManifestID})
	var coldIdx = -1
	var cold contSpan
	for i, it := range gjson.GetBytes(m, "omitted").Array() {
		if sp := contItemSpan(it); sp.session == s.id && it.Get("reason").Str == "budget" {
			coldIdx, cold = i, sp
			break
		}
	}
	if coldIdx < 0 {
		t.Fatalf("nothing of the audit was omitted: %s", gjson.GetBytes(m, "omitted").Raw)
	}
	recall := func(from, to int64, id string) {
		t.Helper()
		r, err := h.ToolCall(ctxT(t), host.ToolCallParams{SessionID: out.SuccessorID, Turn: 1, CallID: id, Name: "session_recall",
			Arguments: map[string]any{"sessionId": s.id, "fromEventId": strconv.FormatInt(from, 10), "toEventId": strconv.FormatInt(to, 10)}})
		if err != nil || r.IsError {
			t.Fatalf("recall %d–%d: %v %s", from, to, err, r.Structured)
		}
	}
	for i := range 3 {
		recall(cold.from, cold.from, fmt.Sprintf("call-recall-%d", i))
	}
	v := contRemote(t, h, "handoff", map[string]any{"edgeId": out.EdgeID})
	recalls := gjson.GetBytes(v, "omittedRecalls").Array()
	if len(recalls) != 1 || recalls[0].Get("omitted").Int() != int64(coldIdx) || recalls[0].Get("count").Int() != 3 {
		t.Fatalf("omittedRecalls after 3 recalls of omitted item %d (%s): %s", coldIdx, cold, gjson.GetBytes(v, "omittedRecalls").Raw)
	}
	// The initiating message is in the projection: recalling it is no signal.
	recall(person, person, "call-recall-included")
	if got := gjson.GetBytes(contRemote(t, h, "handoff", map[string]any{"edgeId": out.EdgeID}), "omittedRecalls").Raw; got != gjson.GetBytes(v, "omittedRecalls").Raw {
		t.Fatalf("a recall of the initiating message was counted: %s", got)
	}
}

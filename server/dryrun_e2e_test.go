package server_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// Issue 28 #10 (seed 000, phase 3): continue_session with dryRun returns
// the projection manifest's lists and the budget estimate and creates
// nothing — no successor, no edge, the turn goes on; the same call without
// dryRun then continues with the same manifest.
func TestDSHContinueDryRunCreatesNothing(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	s := dshHOpen(t, h, "sess-dry", false)
	s.prompt(t, 1, "Rethink compaction for long sessions.")
	s.answer(t, 1, "Summaries of summaries lose the record; continuation keeps it.")
	person := s.prompt(t, 2, "Now plan the v2 migration step by step.")
	s.event(t, "assistant/message", dsh.Assistant(2, 1, "github-copilot-preview", turnsXModel, "",
		[]dsh.Call{{ID: "call-dry", Name: "continue_session", Arguments: `{}`}}, 1500))
	args := map[string]any{
		"reason": "phase_change", "title": "v2 migration plan",
		"handoff": map[string]any{"purpose": "plan the v2 migration", "currentRequest": "plan the v2 migration step by step"},
		"sources": []any{map[string]any{"kind": "session_events", "sessionId": s.id, "fromEventId": "0",
			"toEventId": strconv.FormatInt(person-1, 10), "relevance": "why compaction is being replaced"}},
		"dryRun": true,
	}
	call := func(id string) host.ToolResult {
		res, err := h.ToolCall(ctxT(t), host.ToolCallParams{SessionID: s.id, Turn: 2, CallID: id, Name: "continue_session", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := call("call-dry")
	var dry struct {
		DryRun   bool            `json:"dryRun"`
		Included json.RawMessage `json:"included"`
		Tokens   struct {
			Budget, Used int
		} `json:"tokens"`
	}
	contOK(t, "continue_session", res, &dry)
	if !dry.DryRun || res.EndsTurn || dry.Tokens.Budget != 24000 || dry.Tokens.Used <= 0 || len(gjson.ParseBytes(dry.Included).Array()) == 0 {
		t.Fatalf("dry run: %s (endsTurn %v)", res.Structured, res.EndsTurn)
	}
	if n := len(h.CreatedSessions()); n != 0 {
		t.Fatalf("a dry run created %d sessions", n)
	}
	if cards := gjson.GetBytes(contRemote(t, h, "lineage", map[string]any{"agentId": s.id}), "cards").Array(); len(cards) != 0 {
		t.Fatalf("a dry run left %d transition cards", len(cards))
	}
	// The turn goes on: its next step is admitted.
	if _, rerr := s.request(t, 2, 2, "req_2_2", "acct-A"); rerr != nil {
		t.Fatalf("the turn after a dry run: %v", rerr)
	}

	delete(args, "dryRun")
	var out contContinued
	contOK(t, "continue_session", call("call-real"), &out)
	m := contRemote(t, h, "manifest", map[string]any{"manifestId": out.ManifestID})
	if got := gjson.GetBytes(m, "included").Raw; got != string(dry.Included) {
		t.Fatalf("the manifest differs from the dry run:\n%s\n%s", got, dry.Included)
	}
	if gjson.GetBytes(m, "tokens.used").Int() != int64(dry.Tokens.Used) {
		t.Fatalf("tokens: dry run %d, manifest %s", dry.Tokens.Used, gjson.GetBytes(m, "tokens").Raw)
	}
}

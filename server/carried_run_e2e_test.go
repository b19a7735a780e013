package server_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
)

// carriedXContinue is DSH's model calling continue_session in turn of sid:
// the assistant/message carrying the tool-call block, then the tool call.
func carriedXContinue(t *testing.T, s *dshHSession, turn int, callID string, person int64, runs []string) host.ToolResult {
	t.Helper()
	s.event(t, "assistant/message", dsh.Assistant(turn, 1, "github-copilot-preview", turnsXModel, "",
		[]dsh.Call{{ID: callID, Name: "continue_session", Arguments: `{}`}}, 1500))
	args := map[string]any{
		"reason": "topic_change", "title": "Carry the migration",
		"handoff": map[string]any{"purpose": "finish the migration", "currentRequest": "finish the migration"},
		"sources": []any{map[string]any{"kind": "session_events", "sessionId": s.id, "fromEventId": "0",
			"toEventId": strconv.FormatInt(person, 10), "relevance": "the request so far"}},
	}
	if runs != nil {
		args["transfer"] = map[string]any{"pendingRuns": runs}
	}
	res, err := s.h.ToolCall(ctxT(t), host.ToolCallParams{SessionID: s.id, Turn: turn, CallID: callID, Name: "continue_session", Arguments: args})
	if err != nil {
		t.Fatalf("continue_session %s: %v", callID, err)
	}
	return res
}

// carriedXStart runs the binary with session/create served and every
// successor known to agents/get with the seeded header continuity asks for.
func carriedXStart(t *testing.T) (*host.Host, *contSessions) {
	t.Helper()
	reg := newContSessions()
	h := contStart(t, t.TempDir(), reg)
	reg.after = func(p hostapi.CreateSession) {
		for _, c := range reg.sessions() {
			if c.IdempotencyKey == p.IdempotencyKey {
				h.SetAgentHeader(c.SessionID, dsh.Format4.Header(c.SessionID, &dshBorn, true, ""), host.StatusIdle)
			}
		}
	}
	return h, reg
}

// Issue 28 #4: a DSH tool call still running when the model continues is
// carried to the successor (transfer.pendingRuns). For the predecessor it
// is then settled: a later continue_session from it (the return offer's
// "branch") is neither UNSETTLED_EFFECTS for not listing it nor
// TRANSFER_INVALID "already carried".
func TestDSHCarriedRunIsSettledForThePredecessor(t *testing.T) {
	h, _ := carriedXStart(t)
	s := dshHOpen(t, h, "sess-pred", false)
	person := s.prompt(t, 1, "Run the database migration and watch it finish.")
	call := dsh.Call{ID: "call-migrate-1", Name: "bash", Arguments: `{"command":"make migrate"}`}
	s.event(t, "assistant/message", dsh.Assistant(1, 1, "github-copilot-preview", turnsXModel, "Starting it.", []dsh.Call{call}, 1400))
	s.event(t, "tool/call", dsh.ToolCall(1, 1, call))

	// Not listing the running call is refused; listing it carries it.
	if code := contErrCode(t, carriedXContinue(t, s, 1, "call-cont-0", person, nil)); code != "CONTINUITY_UNSETTLED_EFFECTS" {
		t.Fatalf("the running call unlisted: %s", code)
	}
	var out contContinued
	contOK(t, "continue_session", carriedXContinue(t, s, 1, "call-cont-1", person, []string{"call-migrate-1"}), &out)
	s.event(t, "turn/end", dsh.TurnEnd(1, "completed"))

	// The person writes in the predecessor again and branches.
	person = s.prompt(t, 2, "Also check the rollback path from here.")
	res := carriedXContinue(t, s, 2, "call-cont-2", person, nil)
	if res.IsError {
		t.Fatalf("the branch after carrying the run: %s", res.Structured)
	}
	var branch contContinued
	contOK(t, "continue_session", res, &branch)
	if branch.SuccessorID == out.SuccessorID {
		t.Fatalf("the branch went to the same successor %s", branch.SuccessorID)
	}
	// The carried run is not the predecessor's to carry again.
	s.event(t, "turn/end", dsh.TurnEnd(2, "completed"))
	person = s.prompt(t, 3, "And once more.")
	res = carriedXContinue(t, s, 3, "call-cont-3", person, []string{"call-migrate-1"})
	if code := contErrCode(t, res); code != "CONTINUITY_TRANSFER_INVALID" || strings.Contains(string(res.Structured), "already carried") {
		t.Fatalf("listing a carried run again: %s %s", code, res.Structured)
	}
}

// Issue 28 #3: continuity asks the host for a seeded successor, and seeded
// sessions resolve off; the successor gets the predecessor's effective
// Session policy as its own row at creation instead, so visible-history
// continuation stays on across the continuation (and stays off when it
// was off).
func TestDSHSuccessorInheritsTheSessionPolicy(t *testing.T) {
	h, _ := carriedXStart(t)
	for _, c := range []struct {
		sid    string
		seeded bool // a seeded predecessor resolves off
	}{{"sess-on", false}, {"sess-off", true}} {
		s := dshHOpen(t, h, c.sid, c.seeded)
		person := s.prompt(t, 1, "Plan the v2 migration.")
		var out contContinued
		contOK(t, "continue_session", carriedXContinue(t, s, 1, "call-cont-"+c.sid, person, nil), &out)
		pred, succ := dshView(t, h, c.sid), dshView(t, h, out.SuccessorID)
		if gjson.GetBytes(succ, "source").Str != "session" || gjson.GetBytes(succ, "enabled").Bool() != gjson.GetBytes(pred, "enabled").Bool() ||
			gjson.GetBytes(pred, "enabled").Bool() == c.seeded {
			t.Fatalf("%s: predecessor %s, successor %s", c.sid, pred, succ)
		}
		raw, _ := h.Settings("github-copilot")
		if !gjson.GetBytes(raw, `sessionContinuation.#(sessionId=="`+out.SuccessorID+`")`).Exists() {
			t.Fatalf("%s: no row for the successor in %s", c.sid, raw)
		}
	}
}

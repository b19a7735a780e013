package server_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
)

// A RESEED hands its projection to session continuation: continue_session
// with "projection": "reseed" takes reason, title, handoff and sources from
// the latest complete RESEED decision, and the successor's first context
// carries the reseeded task — not the replaced one.
func TestReseedProjectionSeedsTheSuccessor(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	const sid = "ses_reseed"
	h.SetAgent(sid, nil, "idle")

	// Before any decision there is nothing to take.
	res := contCall(t, h, sid, "call-early", "continue_session", map[string]any{"projection": "reseed"})
	if code := contErrCode(t, res); code != "CONTINUITY_RESEED_UNAVAILABLE" {
		t.Fatalf("no decision yet: %s", code)
	}

	bndSend(t, h, sid, bndFirstTurn.events...)
	bndAwait(t, h, sid, 5, "turn_end")
	// An APPEND offers no projection either.
	res = contCall(t, h, sid, "call-append", "continue_session", map[string]any{"projection": "reseed"})
	if code := contErrCode(t, res); code != "CONTINUITY_RESEED_UNAVAILABLE" {
		t.Fatalf("after an APPEND: %s", code)
	}

	bndSend(t, h, sid, bndTurnStart(6, 1), bndUser(7, "Forget the parser. Write the CSV exporter instead."))
	pin := contCall(t, h, sid, "call-pin", "pin_task", map[string]any{"text": "Write the CSV exporter in exporter/csv.", "reason": "the user replaced the parser task"})
	if pin.IsError {
		t.Fatalf("pin_task: %s", pin.Structured)
	}
	bndSend(t, h, sid, bndAssistant(8, "Understood.", bndAnn{"next_action", "exporter/csv", "Create exporter/csv.go with a Write function"}), bndTurnEnd(9, 1))
	rec := bndAwait(t, h, sid, 9, "turn_end")
	if gjson.GetBytes(rec, "decision").Str != "RESEED" || !gjson.GetBytes(rec, "reseed.complete").Bool() {
		t.Fatalf("expected a complete RESEED: %s", rec)
	}

	res = contCall(t, h, sid, "call-reseed", "continue_session", map[string]any{"projection": "reseed", "title": "CSV exporter"})
	var got contContinued
	contOK(t, "continue_session", res, &got)
	if !got.Created {
		t.Fatal("the successor was not created")
	}
	var created *host.CreatedSession
	for _, c := range h.CreatedSessions() {
		if c.SessionID == got.SuccessorID {
			c := c
			created = &c
		}
	}
	if created == nil {
		t.Fatalf("session/create never made %s", got.SuccessorID)
	}
	if created.Title != "CSV exporter" {
		t.Fatalf("an explicit title must win: %q", created.Title)
	}
	// The handoff is the RESEED's positive state: the new task and its next
	// action, nothing of the replaced task (which stays recallable history).
	handoffSection := gjson.GetBytes(created.Context, `sections.#(kind=="handoff").handoff`).Raw
	if !strings.Contains(handoffSection, "Write the CSV exporter in exporter/csv.") ||
		!strings.Contains(handoffSection, "Create exporter/csv.go with a Write function") ||
		strings.Contains(handoffSection, "tokenizer") || strings.Contains(handoffSection, "parser") {
		t.Fatalf("the successor's handoff is not the reseeded task: %s", handoffSection)
	}
	// The successor receives the query step 7 verified, exactly.
	query := gjson.GetBytes(rec, "reseed.projection.query").Str
	if query == "" || gjson.GetBytes(created.Context, `sections.#(kind=="query").text`).Str != query ||
		!strings.Contains(gjson.GetBytes(created.Context, "host.system").Str, query) {
		t.Fatalf("the successor does not receive the verified query %q:\n%s", query, created.Context)
	}
	// A replay of the same call is answered from the store, even after a
	// later boundary recorded a different decision.
	bndSend(t, h, sid, bndTurnStart(10, 2), bndUser(11, "Thanks."), bndTurnEnd(12, 2))
	bndAwait(t, h, sid, 12, "turn_end")
	var again contContinued
	contOK(t, "continue_session", contCall(t, h, sid, "call-reseed", "continue_session", map[string]any{"projection": "reseed", "title": "CSV exporter"}), &again)
	if again.SuccessorID != got.SuccessorID || again.Created {
		t.Fatalf("replay gave %+v, want the same successor with created false", again)
	}
	handoff := contRemote(t, h, "handoff", map[string]string{"edgeId": got.EdgeID})
	if r := gjson.GetBytes(handoff, "reason").Str; r != "topic_change" {
		t.Fatalf("reason %q, want topic_change from the RESEED", r)
	}
}

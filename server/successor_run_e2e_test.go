package server_test

import (
	"bytes"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
)

// runXCard is the predecessor's transition card for its first successor.
func runXCard(t *testing.T, h *host.Host, sid string) gjson.Result {
	t.Helper()
	v := contRemote(t, h, "lineage", map[string]any{"agentId": sid})
	card := gjson.GetBytes(v, "cards.0")
	if !card.Exists() {
		t.Fatalf("%s has no transition card: %s", sid, v)
	}
	return card
}

// Issue 28 #2: a host that declares capabilities.runs is asked to start the
// successor's first run (session/run) with the person's initiating message
// byte for byte and the projection session/create carried; the card says
// started. A start that fails is the card's run state failed, with the
// error and retryRun and back; continuity/startRun retries it. A host that
// cannot start runs keeps today's behaviour and the card says what to do.
func TestDSHSuccessorRunStarts(t *testing.T) {
	caps := host.AllCapabilities()
	caps.Runs = true
	h := initialized(t, host.Config{}, caps)

	s := dshHOpen(t, h, "sess-run", false)
	person := s.prompt(t, 1, "Plan the v2 migration: keep café ✓ and the \"old\" ids.")
	var out contContinued
	contOK(t, "continue_session", carriedXContinue(t, s, 1, "call-cont-run", person, nil), &out)
	runs := h.StartedRuns()
	if len(runs) != 1 || runs[0].SessionID != out.SuccessorID || runs[0].EdgeID != out.EdgeID || runs[0].PredecessorID != "sess-run" {
		t.Fatalf("runs started: %+v (successor %s)", runs, out.SuccessorID)
	}
	var sent []byte
	for _, ev := range h.SessionLog("sess-run") {
		if ev.Seq == person {
			sent = ev.Data
		}
	}
	if !bytes.Equal(runs[0].Message, sent) {
		t.Fatalf("the run's message is not the initiating message verbatim:\n%s\n%s", runs[0].Message, sent)
	}
	made := h.CreatedSessions()
	if len(made) != 1 || !bytes.Equal(runs[0].Context, made[0].Context) {
		t.Fatal("the run's context is not the projection session/create carried")
	}
	if card := runXCard(t, h, "sess-run"); card.Get("run.state").Str != "started" || card.Get("run.actions").Exists() {
		t.Fatalf("card after a started run: %s", card.Raw)
	}

	// The host fails to start the next one: failed, with retry and back.
	h.FailRuns(1, "agent-busy")
	s2 := dshHOpen(t, h, "sess-run-2", false)
	person = s2.prompt(t, 1, "Write the release notes.")
	contOK(t, "continue_session", carriedXContinue(t, s2, 1, "call-cont-run-2", person, nil), &out)
	card := runXCard(t, h, "sess-run-2")
	if card.Get("run.state").Str != "failed" || card.Get("run.error.code").Str != "CONTINUITY_HOST_RUN_FAILED" ||
		card.Get("run.error.hostCode").Str != "agent-busy" || card.Get("run.actions").Raw != `["retryRun","back"]` {
		t.Fatalf("card after a failed start: %s", card.Raw)
	}
	if n := len(h.StartedRuns()); n != 1 {
		t.Fatalf("%d runs started, want 1", n)
	}
	v := contRemote(t, h, "startRun", map[string]any{"edgeId": out.EdgeID})
	if gjson.GetBytes(v, "state").Str != "started" {
		t.Fatalf("retry: %s", v)
	}
	if runs := h.StartedRuns(); len(runs) != 2 || runs[1].EdgeID != out.EdgeID {
		t.Fatalf("runs after the retry: %+v", runs)
	}
	if card := runXCard(t, h, "sess-run-2"); card.Get("run.state").Str != "started" {
		t.Fatalf("card after the retry: %s", card.Raw)
	}
	// A run that started is not started twice.
	if v := contRemote(t, h, "startRun", map[string]any{"edgeId": out.EdgeID}); gjson.GetBytes(v, "state").Str != "started" || len(h.StartedRuns()) != 2 {
		t.Fatalf("a second retry: %s, %d runs", v, len(h.StartedRuns()))
	}
}

// A host that does not declare capabilities.runs is never asked: the
// successor waits for the person's message, and the card says so.
func TestDSHSuccessorRunManualWithoutTheCapability(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	s := dshHOpen(t, h, "sess-manual", false)
	person := s.prompt(t, 1, "Plan the v2 migration.")
	var out contContinued
	contOK(t, "continue_session", carriedXContinue(t, s, 1, "call-cont-manual", person, nil), &out)
	card := runXCard(t, h, "sess-manual")
	if card.Get("run.state").Str != "manual" || card.Get("run.guidanceKey").Str != "continuation.run.manual" {
		t.Fatalf("card without the capability: %s", card.Raw)
	}
	if h.CallCount("session/run") != 0 || len(h.StartedRuns()) != 0 {
		t.Fatal("session/run was called on a host that did not declare runs")
	}
}

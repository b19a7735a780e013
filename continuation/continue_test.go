package continuation

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

func TestContinueCreatesSuccessor(t *testing.T) {
	e := newEnv(t, Options{})
	seedPredecessor(e.host, "A")
	r := e.call("A", "call-1", ToolContinueSession, argsFile(t, "basic"))
	if r.IsError || !r.EndsTurn {
		t.Fatalf("result %+v", r)
	}
	if err := uicontract.ValidateValue("tool/continue_session.structured", mustJSONValue(t, r.Structured)); err != nil {
		t.Fatal(err)
	}
	got := as[ContinueResult](t, r.Structured)
	if !got.Created || got.SuccessorID == "" || got.EdgeID == "" || got.ManifestID == "" {
		t.Fatalf("structured %+v", got)
	}
	if len(e.host.emitted) != 1 || e.host.emitted[0].event != EventContinued {
		t.Fatalf("emitted %+v", e.host.emitted)
	}
	if err := uicontract.ValidateValue("event/session.continued.args", mustJSONValue(t, e.host.emitted[0].args)); err != nil {
		t.Fatal(err)
	}
	s := e.host.sessions[got.SuccessorID]
	if s.pred != "A" || s.title != "Session continuation proposal" || !s.header.IsSeeded || s.header.Origin != "A" || s.header.ParentSession != "" {
		t.Fatalf("host session %+v header %+v", s, s.header)
	}
	if err := uicontract.Validate("continuation/projection", s.context); err != nil {
		t.Fatal(err)
	}
	m, err := e.svc.Manifest(context.Background(), got.ManifestID)
	if err != nil {
		t.Fatal(err)
	}
	if err := uicontract.ValidateValue("continuation/manifest", mustJSONValue(t, m)); err != nil {
		t.Fatal(err)
	}
	if m.SuccessorID != got.SuccessorID || m.PredecessorID != "A" || m.OriginID != "A" || m.InitiatingEvent.EventID != "6" ||
		m.Actor.CallID != "call-1" || m.Reason != "topic_change" || m.Digests.Context != digestOf(s.context) {
		t.Fatalf("manifest %+v", m)
	}
	// The four cited sources; the recent messages 2 and 3 are inside the
	// cited range 1–4 and are not loaded twice. The predecessor's other
	// events are accounted for as history, never offered.
	if len(selectedOmitted(m.Omitted)) != 0 || len(m.Included) != 4 {
		t.Fatalf("included %d omitted %d: %+v", len(m.Included), len(m.Omitted), m.Included)
	}
}

func TestReplaySameCallID(t *testing.T) {
	e := newEnv(t, Options{})
	seedPredecessor(e.host, "A")
	first := e.mustContinue("A", "call-1", argsFile(t, "basic"))
	sessions := e.host.sessionCount()
	second := e.mustContinue("A", "call-1", argsFile(t, "basic"))
	e.restart()
	third := e.mustContinue("A", "call-1", argsFile(t, "basic"))
	if second.Created || third.Created {
		t.Fatal("a replay reported created")
	}
	for _, r := range []ContinueResult{second, third} {
		if r.SuccessorID != first.SuccessorID || r.EdgeID != first.EdgeID || r.ManifestID != first.ManifestID {
			t.Fatalf("replay %+v differs from %+v", r, first)
		}
	}
	if e.host.sessionCount() != sessions || len(e.host.emitted) != 1 {
		t.Fatalf("sessions %d→%d, emitted %d", sessions, e.host.sessionCount(), len(e.host.emitted))
	}
}

// TestCallIDsRepeatAcrossTurns: a host that numbers call ids per turn sends
// "call-1" again in the next turn; that is a new continuation, not a replay
// of the first. An edge written before the turn was part of the key still
// answers a replay of its own call, and only that.
func TestCallIDsRepeatAcrossTurns(t *testing.T) {
	e := newEnv(t, Options{})
	seedPredecessor(e.host, "A")
	first := e.mustContinue("A", "call-1", argsFile(t, "basic")) // in turnOf("call-1")
	inTurn := func(turn int64) ContinueResult {
		t.Helper()
		res, err := e.svc.Tool(context.Background(), ToolCall{SessionID: "A", Turn: turn, CallID: "call-1",
			Name: ToolContinueSession, Arguments: json.RawMessage(argsFile(t, "basic"))})
		if err != nil || res.IsError {
			t.Fatalf("turn %d: %v %+v", turn, err, res.Structured)
		}
		return as[ContinueResult](t, res.Structured)
	}
	second := inTurn(2)
	if !second.Created || second.SuccessorID == first.SuccessorID || second.EdgeID == first.EdgeID {
		t.Fatalf("call-1 of turn 2 = %+v, turn 1 made %+v", second, first)
	}

	// The first edge as an older plugin stored it: its key had no turn.
	if _, err := e.db.Exec(`UPDATE continuation_edges SET idempotency_key = ? WHERE id = ?`,
		legacyKey("A", "call-1"), first.EdgeID); err != nil {
		t.Fatal(err)
	}
	if replay := inTurn(turnOf("call-1")); replay.Created || replay.EdgeID != first.EdgeID {
		t.Fatalf("replay of the legacy edge's own call = %+v, want %+v", replay, first)
	}
	if again := inTurn(2); again.Created || again.EdgeID != second.EdgeID {
		t.Fatalf("replay in turn 2 = %+v, want %+v", again, second)
	}
}

func TestCrashBetweenHostCreateAndCommit(t *testing.T) {
	e := newEnv(t, Options{})
	seedPredecessor(e.host, "A")
	e.host.failAfterCreate = true
	if c := code(t, e.call("A", "call-1", ToolContinueSession, argsFile(t, "basic"))); c != diag.HostCreateFailed {
		t.Fatalf("code %q", c)
	}
	created := e.host.sessionCount()
	firstContext := e.host.contextOf("session-2")
	// The predecessor moves on before the replay; the replay must still
	// finish the continuation that the host already created, unchanged.
	e.host.add("A", ev("user/message", `{"text":"a later message"}`))
	e.host.failAfterCreate = false
	e.restart()
	r := e.mustContinue("A", "call-1", argsFile(t, "basic"))
	if !r.Created || r.SuccessorID != "session-2" {
		t.Fatalf("recovered %+v", r)
	}
	again := e.mustContinue("A", "call-1", argsFile(t, "basic"))
	if again.Created || again.SuccessorID != r.SuccessorID {
		t.Fatalf("second replay %+v", again)
	}
	if e.host.sessionCount() != created {
		t.Fatalf("replay created another session: %d → %d", created, e.host.sessionCount())
	}
	m, _ := e.svc.Manifest(context.Background(), r.ManifestID)
	if m.InitiatingEvent.EventID != "6" || m.Digests.Context != digestOf(firstContext) {
		t.Fatalf("recovered manifest describes another projection: %+v", m.InitiatingEvent)
	}
	v, _ := e.svc.Lineage(context.Background(), "A")
	if len(v.Cards) != 1 || len(e.host.emitted) != 1 {
		t.Fatalf("cards %d emitted %d", len(v.Cards), len(e.host.emitted))
	}
}

func TestSeveralSuccessorsAndCorrection(t *testing.T) {
	e := newEnv(t, Options{})
	seedPredecessor(e.host, "A")
	b := e.mustContinue("A", "call-1", argsFile(t, "basic"))
	e.host.add("A", ev("tool/result", `{"callId":"call-1","isError":false}`))
	c := e.mustContinue("A", "call-2", argsFile(t, "minimal"))
	if b.SuccessorID == c.SuccessorID || b.EdgeID == c.EdgeID {
		t.Fatal("a second continuation reused the first")
	}
	// The successor B finds its handoff wrong and asks for a corrected one
	// from A: a new edge; the old edge and B stay.
	fixed := withArgs(t, "minimal", func(a map[string]any) { a["corrects"] = b.EdgeID })
	d := e.mustContinue(b.SuccessorID, "call-9", fixed)
	ctx := context.Background()
	v, err := e.svc.Lineage(ctx, "A")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Cards) != 3 || v.Cards[2].SuccessorID != d.SuccessorID || v.Cards[2].Corrects != b.EdgeID {
		t.Fatalf("cards %+v", v.Cards)
	}
	if _, err := e.svc.Handoff(ctx, b.EdgeID); err != nil {
		t.Fatalf("the corrected edge is gone: %v", err)
	}
	m, _ := e.svc.Manifest(ctx, d.ManifestID)
	if m.PredecessorID != "A" || m.InitiatingEvent.EventID != "6" || m.Actor.SessionID != b.SuccessorID {
		t.Fatalf("corrected manifest %+v", m)
	}
	for _, v := range []LineageValue{mustLineage(t, e, d.SuccessorID)} {
		if v.Banner == nil || v.Banner.PredecessorID != "A" || len(v.Path.Sessions) != 2 {
			t.Fatalf("corrected lineage %+v", v)
		}
	}
	// Only the successor of an edge may correct it.
	bad := withArgs(t, "minimal", func(a map[string]any) { a["corrects"] = b.EdgeID })
	if got := code(t, e.call(c.SuccessorID, "call-3", ToolContinueSession, bad)); got != diag.LineageForbidden {
		t.Fatalf("foreign correction: %q", got)
	}
}

func mustLineage(t *testing.T, e *env, id string) LineageValue {
	t.Helper()
	v, err := e.svc.Lineage(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustJSONValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConcurrentReplaysConverge(t *testing.T) {
	e := newEnv(t, Options{})
	seedPredecessor(e.host, "A")
	const n = 6
	args := json.RawMessage(argsFile(t, "basic"))
	results := make(chan ToolResult, n)
	for i := 0; i < n; i++ {
		go func() {
			r, _ := e.svc.Tool(context.Background(), ToolCall{SessionID: "A", Turn: 1, CallID: "call-1",
				Name: ToolContinueSession, Arguments: args})
			results <- r
		}()
	}
	created, successor := 0, ""
	for i := 0; i < n; i++ {
		r := <-results
		if r.IsError {
			t.Fatalf("concurrent replay failed: %s", r.Content[0].Text)
		}
		c := as[ContinueResult](t, r.Structured)
		if c.Created {
			created++
		}
		if successor != "" && c.SuccessorID != successor {
			t.Fatal("replays disagree on the successor")
		}
		successor = c.SuccessorID
	}
	if created != 1 || e.host.sessionCount() != 2 || len(e.host.emitted) != 1 {
		t.Fatalf("created %d, sessions %d, emitted %d", created, e.host.sessionCount(), len(e.host.emitted))
	}
}

// A host that answers session/read in pages gives the same continuation.
func TestPagedHostReadsGiveTheSameProjection(t *testing.T) {
	var contexts []string
	for _, page := range []int{0, 1, 2} {
		e := newEnv(t, Options{})
		seedPredecessor(e.host, "A")
		e.host.pageSize = page
		r := e.mustContinue("A", "call-1", argsFile(t, "basic"))
		contexts = append(contexts, string(e.host.contextOf(r.SuccessorID)))
	}
	if contexts[0] != contexts[1] || contexts[0] != contexts[2] {
		t.Fatal("paged reads changed the projection")
	}
}

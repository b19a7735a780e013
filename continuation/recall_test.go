package continuation

import (
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// continued returns an env where A was continued into a successor with
// every source omitted (budget 1), so everything cited is linked but cold.
func continued(t *testing.T) (*env, ContinueResult) {
	t.Helper()
	e := newEnv(t, Options{TokenBudget: 1})
	seedPredecessor(e.host, "A")
	return e, e.mustContinue("A", "call-1", argsFile(t, "basic"))
}

func recallOf(t *testing.T, e *env, caller, args string) RecallResult {
	t.Helper()
	r := e.call(caller, "recall", ToolSessionRecall, args)
	if r.IsError {
		t.Fatalf("recall: %s", r.Content[0].Text)
	}
	return as[RecallResult](t, r.Structured)
}

func TestRecallOmittedRangeIsExact(t *testing.T) {
	e, r := continued(t)
	got := recallOf(t, e, r.SuccessorID, `{"sessionId":"A","fromEventId":"1","toEventId":"4"}`)
	want := e.host.sessions["A"].events[:4]
	if len(got.Events) != 4 || len(got.Unavailable) != 0 {
		t.Fatalf("recall %+v", got)
	}
	for i, ev := range got.Events {
		if ev.EventID != eventID(want[i].Seq) || ev.Type != want[i].Type || string(ev.Data) != string(want[i].Data) ||
			ev.Digest != eventDigest(want[i]) || ev.Version != "manifest" || ev.Changed {
			t.Fatalf("event %d: %+v", i, ev)
		}
	}
	// Events no manifest selected come from the host as they are now.
	one := recallOf(t, e, r.SuccessorID, `{"sessionId":"A","eventId":"7"}`)
	if len(one.Events) != 1 || one.Events[0].Version != "current" {
		t.Fatalf("single event %+v", one)
	}
}

func TestRecallChangedSourceKeepsManifestVersion(t *testing.T) {
	e, r := continued(t)
	e.host.setEvent("A", 3, "assistant/message", `{"text":"an edited answer"}`)
	got := recallOf(t, e, r.SuccessorID, `{"sessionId":"A","fromEventId":"3","toEventId":"3"}`)
	if len(got.Events) != 1 || !got.Events[0].Changed || string(got.Events[0].Data) != `{"text":"Summaries of summaries lose facts."}` {
		t.Fatalf("changed source %+v", got.Events)
	}
}

func TestRecallRevokedOrMissingSourceIsUnavailable(t *testing.T) {
	e, r := continued(t)
	e.host.setEvent("A", 3, "", `{}`) // event 3 disappears at the host
	got := recallOf(t, e, r.SuccessorID, `{"sessionId":"A","fromEventId":"1","toEventId":"4"}`)
	if len(got.Events) != 3 || len(got.Unavailable) != 1 || got.Unavailable[0].FromEventID != "3" {
		t.Fatalf("missing event %+v", got)
	}
	e.host.revoked["A"] = true
	got = recallOf(t, e, r.SuccessorID, `{"sessionId":"A","fromEventId":"1","toEventId":"4"}`)
	if len(got.Events) != 0 || len(got.Unavailable) != 1 || got.Unavailable[0].HostCode != "session-revoked" ||
		got.Unavailable[0].Code != diag.SourceUnavailable {
		t.Fatalf("revoked source %+v", got)
	}
}

func TestRecallPagesAndTruncates(t *testing.T) {
	e := newEnv(t, Options{RecallMaxEvents: 3})
	seedPredecessor(e.host, "A")
	e.host.pageSize = 2
	got := recallOf(t, e, "A", `{"sessionId":"A","fromEventId":"1","toEventId":"7"}`)
	if len(got.Events) != 3 || !got.Truncated || got.NextEventID != "4" || len(got.Unavailable) != 0 {
		t.Fatalf("paged recall %+v", got)
	}
}

func TestRecallOutsideLineageIsRefused(t *testing.T) {
	e, r := continued(t)
	e.host.add("X", ev("user/message", `{"text":"unrelated"}`))
	cases := []struct {
		name, caller, args, code string
	}{
		{"unrelated session", r.SuccessorID, `{"sessionId":"X","eventId":"1"}`, diag.LineageForbidden},
		{"successor from predecessor", "A", `{"sessionId":"` + r.SuccessorID + `","eventId":"1"}`, diag.LineageForbidden},
		{"reversed range", r.SuccessorID, `{"sessionId":"A","fromEventId":"4","toEventId":"1"}`, diag.ContinuityArgumentsInvalid},
		{"both shapes", r.SuccessorID, `{"sessionId":"A","eventId":"1","fromEventId":"1","toEventId":"2"}`, diag.ContinuityArgumentsInvalid},
		{"ancestor", r.SuccessorID, `{"sessionId":"A","eventId":"2"}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := code(t, e.call(c.caller, "r", ToolSessionRecall, c.args)); got != c.code {
				t.Fatalf("code %q, want %q", got, c.code)
			}
		})
	}
}

// A handoff cites only what its caller could recall: another session's
// events would otherwise be copied into the successor (and become
// recallable through its manifest) without being on the lineage.
func TestContinueCannotCiteOutsideItsLineage(t *testing.T) {
	e := newEnv(t, Options{})
	seedPredecessor(e.host, "A")
	e.host.add("B0", ev("user/message", `{"text":"one"}`), ev("user/message", `{"text":"two"}`))
	args := withArgs(t, "minimal", func(a map[string]any) {
		a["sources"] = []any{map[string]any{"kind": "session_events", "sessionId": "B0", "fromEventId": "1", "toEventId": "2", "relevance": "x"}}
	})
	if got := code(t, e.call("A", "call-1", ToolContinueSession, args)); got != diag.LineageForbidden {
		t.Fatalf("citing a session outside the lineage: %q", got)
	}
	if e.host.creates != 0 {
		t.Fatal("a refused continuation reached the host")
	}
}

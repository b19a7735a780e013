package server_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
)

// TestContinuationCrashBetweenCreateAndCommit kills the plugin (SIGKILL)
// after the host has created the successor and before the plugin could
// commit its edge. A new process on the same data dir, given the same call
// again, finishes the pending continuation: exactly one successor exists,
// the host was asked twice with the same key, and the recovering answer is
// the one that commits (created true, one session.continued).
func TestContinuationCrashBetweenCreateAndCommit(t *testing.T) {
	dir, reg := t.TempDir(), newContSessions()
	h := contStart(t, dir, reg)
	const a = "ses-a"
	contSeed(t, h, a)
	log := h.SessionLog(a)

	var kill sync.Once
	reg.mu.Lock()
	reg.after = func(hostapi.CreateSession) {
		kill.Do(func() {
			if err := killHard(h.PID()); err != nil {
				t.Errorf("kill: %v", err)
			}
			<-h.Exited() // the answer below can never reach the plugin
		})
	}
	reg.mu.Unlock()
	_, err := h.ToolCall(ctxT(t), host.ToolCallParams{SessionID: a, Turn: 1, CallID: "call-cont-1",
		Name: "continue_session", Arguments: contArgs(a)})
	if !errors.Is(err, host.ErrExited) {
		t.Fatalf("the killed plugin answered: %v", err)
	}
	reg.mu.Lock()
	reg.after = nil
	reg.mu.Unlock()
	made := reg.sessions()
	if len(made) != 1 {
		t.Fatalf("host made %d sessions before the crash, want 1", len(made))
	}
	key := made[0].IdempotencyKey

	h2 := contStart(t, dir, reg)
	contReplayLog(t, h2, a, log)
	var c contContinued
	contOK(t, "continue_session", contCall(t, h2, a, "call-cont-1", "continue_session", contArgs(a)), &c)
	if !c.Created || c.SuccessorID != made[0].SessionID {
		t.Fatalf("recovered %+v, host made %s", c, made[0].SessionID)
	}
	if n := len(reg.sessions()); n != 1 {
		t.Errorf("host holds %d successors, want exactly 1", n)
	}
	if n := reg.callsFor(key); n != 2 {
		t.Errorf("session/create with the key: %d calls, want 2 (before and after the crash)", n)
	}
	if n := len(h.RemoteEvents("session.continued")) + len(h2.RemoteEvents("session.continued")); n != 1 {
		t.Errorf("session.continued sent %d times, want 1", n)
	}
	lin := contRemote(t, h2, "lineage", map[string]string{"agentId": a})
	if gjson.GetBytes(lin, "cards.#").Int() != 1 || gjson.GetBytes(lin, "cards.0.successorId").String() != c.SuccessorID {
		t.Errorf("predecessor lineage after recovery = %s", lin)
	}
	// A later replay is an ordinary committed replay.
	var again contContinued
	contOK(t, "continue_session", contCall(t, h2, a, "call-cont-1", "continue_session", contArgs(a)), &again)
	if again.Created || again.SuccessorID != c.SuccessorID {
		t.Errorf("replay after recovery = %+v", again)
	}
}

// TestContinuationRefusesCycleAndForeignRecall: a host answer that would
// close a cycle (the successor is the caller's own ancestor, or the caller
// itself) is refused with CONTINUITY_CYCLE and changes no lineage, and a
// recall of a session outside the caller's lineage is
// CONTINUITY_LINEAGE_FORBIDDEN.
func TestContinuationRefusesCycleAndForeignRecall(t *testing.T) {
	reg := newContSessions()
	h := contStart(t, t.TempDir(), reg)
	const a = "ses-a"
	contSeed(t, h, a)
	var ab contContinued
	contOK(t, "continue_session", contCall(t, h, a, "call-cont-1", "continue_session", contArgs(a)), &ab)
	b := ab.SuccessorID

	contEvent(t, h, b, 1, "session/created", `{}`)
	contEvent(t, h, b, 2, "turn/start", `{"turn":0}`)
	contEvent(t, h, b, 3, "user/message", `{"text":"Back to compaction, please."}`)
	for i, answer := range []string{a, b} {
		reg.mu.Lock()
		reg.answer = func(hostapi.CreateSession) string { return answer }
		reg.mu.Unlock()
		args := contArgs(b)
		args["sources"] = []any{}
		res := contCall(t, h, b, "call-cycle-"+answer, "continue_session", args)
		if code := contErrCode(t, res); code != "CONTINUITY_CYCLE" {
			t.Errorf("case %d (host answers %s): code %s", i, answer, code)
		}
	}
	reg.mu.Lock()
	reg.answer = nil
	reg.mu.Unlock()
	linA := contRemote(t, h, "lineage", map[string]string{"agentId": a})
	if gjson.GetBytes(linA, "banner").Type != gjson.Null || gjson.GetBytes(linA, "cards.#").Int() != 1 {
		t.Errorf("a refused cycle changed the origin's lineage: %s", linA)
	}
	linB := contRemote(t, h, "lineage", map[string]string{"agentId": b})
	if gjson.GetBytes(linB, "cards.#").Int() != 0 || gjson.GetBytes(linB, "path.sessions.#").Int() != 2 {
		t.Errorf("a refused cycle changed the successor's lineage: %s", linB)
	}
	if n := len(h.RemoteEvents("session.continued")); n != 1 {
		t.Errorf("session.continued sent %d times, want 1", n)
	}

	const other = "ses-other"
	contEvent(t, h, other, 1, "session/created", `{}`)
	contEvent(t, h, other, 2, "user/message", `{"text":"unrelated"}`)
	res := contCall(t, h, b, "call-recall-1", "session_recall", map[string]string{"sessionId": other, "fromEventId": "1", "toEventId": "2"})
	if code := contErrCode(t, res); code != "CONTINUITY_LINEAGE_FORBIDDEN" {
		t.Errorf("recall outside the lineage: code %s", code)
	}
	// The predecessor itself is on the lineage.
	var rec struct {
		Events []struct {
			EventID string `json:"eventId"`
		} `json:"events"`
	}
	contOK(t, "session_recall", contCall(t, h, b, "call-recall-2", "session_recall", map[string]string{"sessionId": a, "eventId": "3"}), &rec)
	if len(rec.Events) != 1 || rec.Events[0].EventID != "3" {
		t.Errorf("recall of the predecessor = %+v", rec)
	}
}

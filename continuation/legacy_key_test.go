package continuation

import (
	"context"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// TestLegacyPendingEdgeFinishesAfterUpgrade: an older plugin wrote a
// pending edge under the key without the turn, the host created the
// successor under that key, and the reply was lost. After the upgrade (a
// restart) the replay of the same call must find that edge, ask the host
// with the old key (so the host answers the successor it already made) and
// keep the edge and manifest ids the successor's context names. Known must
// report the call as a replay, so reseed does not expand its arguments again.
func TestLegacyPendingEdgeFinishesAfterUpgrade(t *testing.T) {
	e := newEnv(t, Options{})
	seedPredecessor(e.host, "A")
	e.host.failAfterCreate = true
	if c := code(t, e.call("A", "call-1", ToolContinueSession, argsFile(t, "basic"))); c != diag.HostCreateFailed {
		t.Fatalf("code %q", c)
	}
	newKey, oldKey := idempotencyKey("A", turnOf("call-1"), "call-1"), legacyKey("A", "call-1")
	// What an older plugin would have stored and sent: the old key.
	if _, err := e.db.Exec(`UPDATE continuation_edges SET idempotency_key = ? WHERE idempotency_key = ?`, oldKey, newKey); err != nil {
		t.Fatal(err)
	}
	e.host.mu.Lock()
	e.host.byKey[oldKey] = e.host.byKey[newKey]
	delete(e.host.byKey, newKey)
	e.host.mu.Unlock()
	var edgeID string
	if err := e.db.QueryRow(`SELECT id FROM continuation_edges WHERE idempotency_key = ?`, oldKey).Scan(&edgeID); err != nil {
		t.Fatal(err)
	}
	e.host.failAfterCreate = false
	e.restart()
	for turn, want := range map[int64]bool{turnOf("call-1"): true, turnOf("call-1") + 1: false} {
		if known, err := e.svc.Known(context.Background(), "A", turn, "call-1"); err != nil || known != want {
			t.Fatalf("Known(turn %d) = %v, %v; want %v", turn, known, err, want)
		}
	}
	created := e.host.sessionCount()
	r := e.mustContinue("A", "call-1", argsFile(t, "basic"))
	if !r.Created || r.SuccessorID != "session-2" || r.EdgeID != edgeID {
		t.Fatalf("recovered %+v", r)
	}
	if e.host.sessionCount() != created {
		t.Fatalf("the replay created another session: %d → %d", created, e.host.sessionCount())
	}
}

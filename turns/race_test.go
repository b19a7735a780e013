package turns

import (
	"fmt"
	"sync"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// Notifications (turn/end, compaction events, disposal, responses) and
// requests (admission, payloads, views) of several sessions interleave
// freely; run with -race. Every failure must be one of the named codes a
// host can see for that interleaving, never a panic or an unnamed error.
func TestConcurrentLifecycle(t *testing.T) {
	r := newRig(t)
	allowed := map[string]bool{
		diag.Revoked: true, diag.TurnInvalid: true, diag.TurnUnsettled: true, diag.TurnBoundaryUnavailable: true,
		diag.ProcessingOverlap: true, diag.CompactionScopeUnavailable: true, diag.CompactionScopeMismatch: true,
		diag.CompactionBoundaryUnavailable: true,
	}
	check := func(err error) {
		if err != nil && !allowed[diag.CodeOf(err)] {
			t.Errorf("unexpected failure: %v", err)
		}
	}
	payload := body(user("q"), rs("rs_1", "AAAA"), fc(1), out(1), rs("rs_2", "BBBB"), fc(2), out(2))
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		sid := fmt.Sprintf("s%d", g%2)
		r.policy.set(sid, true)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for turn := int64(1); turn <= 30; turn++ {
				rid := fmt.Sprintf("%s-%d-%d", sid, g, turn)
				_, err := r.admit(sid, turn, 1, rid)
				check(err)
				_, err = r.chat(sid, turn, 1, rid, payload)
				check(err)
				r.Response(rid, 400, foreignBody)
				_, err = r.chat(sid, turn, 2, rid, payload)
				check(err)
				_, _ = r.ActiveTurnEnabled(sid)
				_ = r.Notices(sid)
			}
		}()
		go func() {
			defer wg.Done()
			for turn := int64(1); turn <= 30; turn++ {
				cid := fmt.Sprintf("c%d-%d", g, turn)
				r.startCompaction(sid, cid, nil)
				_, err := r.summary(sid, cid, 0, "m1", payload)
				check(err)
				r.checkpoint(sid, cid)
				r.endCompaction(sid, cid, nil, nil)
				r.endTurn(sid, turn)
				if turn%10 == 0 {
					r.Dispose(sid)
				}
				_, _, _ = r.Compaction(sid)
			}
		}()
	}
	wg.Wait()
	r.sent() // every notice sent met the contract
}

package turns

import (
	"strconv"
	"testing"
)

func held(turn int64) Notice {
	return Notice{ID: "continuation-return:s1:" + strconv.FormatInt(turn, 10), AgentID: "s1", Turn: &turn, Kind: "continuationReturn",
		TextKey: "continuation.return.body", At: 1, Continuation: &ContinuationChoice{SuccessorID: "s2", EdgeID: "e1",
			Choices: []string{"open", "branch"}}}
}

func heldKinds(r *rig) (turns []int64) {
	for _, n := range r.Notices("s1").Notices {
		if n.Kind == "continuationReturn" {
			turns = append(turns, *n.Turn)
		}
	}
	return turns
}

// A notice held for a turn (the return offer) is listed by Notices while
// that turn lasts, is not sent again, and goes at the turn's end; one for
// a turn already behind the admitted one, or without a turn, is not held.
func TestHoldForTurn(t *testing.T) {
	r := newRig(t)
	r.HoldForTurn("s1", held(1))
	r.mustAdmit("s1", 1, 1, "r1")
	if got := heldKinds(r); len(got) != 1 || got[0] != 1 {
		t.Fatalf("held for turn 1: %v", got)
	}
	for _, n := range r.sent() {
		if n.Kind == "continuationReturn" {
			t.Fatalf("a held notice was sent again: %+v", n)
		}
	}
	r.endTurn("s1", 1)
	if got := heldKinds(r); len(got) != 0 {
		t.Fatalf("after turn 1 ended: %v", got)
	}

	r.HoldForTurn("s1", held(2))
	r.mustAdmit("s1", 2, 1, "r2")
	r.HoldForTurn("s1", held(1)) // behind the admitted turn
	if got := heldKinds(r); len(got) != 1 || got[0] != 2 {
		t.Fatalf("turn 2: %v", got)
	}
	r.endTurn("s1", 2)
	r.HoldForTurn("s1", held(3))
	r.mustAdmit("s1", 3, 1, "r3")
	r.HoldForTurn("s1", Notice{ID: "no-turn", Kind: "continuationReturn"})
	if got := heldKinds(r); len(got) != 1 || got[0] != 3 {
		t.Fatalf("turn 3: %v", got)
	}
}

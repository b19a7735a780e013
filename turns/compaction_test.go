package turns

import (
	"fmt"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

func (r *rig) startCompaction(sid, cid string, turn *int64) {
	r.event(sid, "compaction/start", map[string]any{"compactionId": cid, "turn": turn})
}

func (r *rig) checkpoint(sid, cid string) {
	r.event(sid, "user/message", map[string]any{"content": "summary", "source": map[string]any{"kind": "compact-checkpoint", "compactionId": cid}})
}

func (r *rig) endCompaction(sid, cid string, turn *int64, errv any) {
	d := map[string]any{"compactionId": cid, "turn": turn}
	if errv != nil {
		d["error"] = errv
	}
	r.event(sid, "compaction/end", d)
}

func (r *rig) state(sid, cid string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[sid]
	if s == nil {
		return StateUnknown
	}
	return s.comp.status(cid)
}

func turnPtr(n int64) *int64 { return &n }

// history is a summary payload holding two earlier turns' reasoning.
var history = body(user("q1"), rs("rs_1", "AAAA"), fc(1), out(1), user("q2"), rs("rs_2", "BBBB"), fc(2), out(2))

// Every segment of a bracket gets a fresh baseline: all reasoning in a
// summary payload is omitted, and the bracket completes only once the
// checkpoint replaced history and no error came.
func TestCompactionSegments(t *testing.T) {
	r := newRig(t)
	r.policy.set("s1", true)
	r.startCompaction("s1", "c1", nil)
	for seg := 0; seg < 2; seg++ {
		res, err := r.summary("s1", "c1", 0, "m1", history)
		if err != nil || res.Outcome != OutcomeFiltered || res.Omitted.Items != 2 {
			t.Fatalf("segment %d: %v %+v %v", seg, res.Outcome, res.Omitted, err)
		}
		if strings.Contains(string(res.Bytes()), "AAAA") || strings.Contains(string(res.Bytes()), "BBBB") || !strings.Contains(string(res.Bytes()), "q2") {
			t.Fatalf("segment %d kept reasoning or lost visible history: %s", seg, res.Bytes())
		}
	}
	if v := r.Notices("s1"); v.PollMs == nil {
		t.Fatal("no polling while the bracket runs")
	}
	r.event("s1", "compaction/summary", map[string]any{"compactionId": "c1"})
	if got := r.state("s1", "c1"); got != StateRunning {
		t.Fatalf("summary text alone settled the bracket: %s", got)
	}
	r.checkpoint("s1", "c1")
	r.endCompaction("s1", "c1", nil, nil)
	if got := r.state("s1", "c1"); got != StateCompleted {
		t.Fatalf("state = %s", got)
	}
	if v := r.Notices("s1"); v.PollMs != nil {
		t.Fatal("polling after the bracket settled")
	}
	if id, st, ok := r.Compaction("s1"); !ok || id != "c1" || st != StateCompleted {
		t.Fatalf("latest = %s %s %v", id, st, ok)
	}
}

func TestCompactionOutcomes(t *testing.T) {
	replay := `{"error":{"message":"The encrypted content gAAA…Rg== could not be verified. Reason: Encrypted content organization_id did not match the target organization.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`
	for _, c := range []struct {
		name       string
		on         bool
		checkpoint bool
		err        any
		want       string
	}{
		{"checkpoint and no error", true, true, nil, StateCompleted},
		{"no checkpoint", true, false, nil, StateFailed},
		{"an error after the checkpoint", true, true, "stream ended unexpectedly", StateFailed},
		{"cancelled", true, false, map[string]any{"name": "AbortError", "message": "This operation was aborted"}, StateCancelled},
		{"cancelled by the user", false, false, "compaction cancelled", StateCancelled},
		{"replay rejection while off", false, false, replay, StateBlocked},
		{"replay rejection as an object while off", false, false, map[string]any{"status": 400, "message": replay}, StateBlocked},
		{"replay rejection while on", true, false, replay, StateFailed},
		{"an unrelated 400 while off", false, false, `{"error":{"message":"context_length_exceeded","code":"context_length_exceeded"}}`, StateFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.policy.set("s1", c.on)
			r.startCompaction("s1", "c1", nil)
			if _, err := r.summary("s1", "c1", 0, "m1", history); err != nil {
				t.Fatal(err)
			}
			if c.checkpoint {
				r.checkpoint("s1", "c1")
			}
			r.endCompaction("s1", "c1", nil, c.err)
			if got := r.state("s1", "c1"); got != c.want {
				t.Fatalf("state = %s, want %s", got, c.want)
			}
			ns := r.sent()
			last := ns[len(ns)-1]
			if last.Compaction == nil || last.Compaction.State != c.want || last.TextKey != "notice.compaction."+c.want {
				t.Fatalf("notice = %+v", last)
			}
			if (last.Offer != nil) != (c.want == StateBlocked) {
				t.Fatalf("offer = %+v for %s", last.Offer, c.want)
			}
		})
	}
}

// A bracket whose start was not seen (the plugin restarted inside it) is
// unknown, never guessed.
func TestUnseenBracketIsUnknown(t *testing.T) {
	r := newRig(t)
	r.checkpoint("s1", "c9")
	r.endCompaction("s1", "c9", nil, nil)
	if id, st, ok := r.Compaction("s1"); !ok || id != "c9" || st != StateUnknown {
		t.Fatalf("latest = %s %s %v", id, st, ok)
	}
	ns := r.sent()
	if len(ns) != 1 || ns[0].TextKey != "notice.compaction.unknown" {
		t.Fatalf("notices = %+v", ns)
	}
}

// The policy of a bracket: inside an active turn the turn's captured
// persistent policy (a one-turn consent never covers a summary); an idle
// manual compaction reads the current session policy, once per bracket.
func TestCompactionPolicy(t *testing.T) {
	r := newRig(t)
	r.consent.set["s1"] = true
	if a := r.mustAdmit("s1", 1, 1, "r1"); !a.Enabled {
		t.Fatal("the consent did not enable turn 1")
	}
	r.startCompaction("s1", "c1", turnPtr(1))
	if res, err := r.summary("s1", "c1", 1, "m1", history); err != nil || res.Outcome != OutcomeNative {
		t.Fatalf("consent covered a summary: %v %v", res.Outcome, err)
	}

	r.policy.set("s2", true)
	r.mustAdmit("s2", 1, 1, "q1")
	r.policy.set("s2", false) // changed during the turn: applies next turn
	r.startCompaction("s2", "c2", turnPtr(1))
	if res, err := r.summary("s2", "c2", 1, "m1", history); err != nil || res.Outcome != OutcomeFiltered {
		t.Fatalf("the turn's captured policy was not used: %v %v", res.Outcome, err)
	}

	r.policy.set("s3", true)
	r.startCompaction("s3", "c3", nil)
	if res, err := r.summary("s3", "c3", 0, "m1", history); err != nil || res.Outcome != OutcomeFiltered {
		t.Fatalf("idle manual: %v %v", res.Outcome, err)
	}
	r.policy.set("s3", false)
	if res, err := r.summary("s3", "c3", 0, "m1", history); err != nil || res.Outcome != OutcomeFiltered {
		t.Fatalf("the bracket's policy changed mid-bracket: %v %v", res.Outcome, err)
	}
}

func TestCompactionRefusals(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(r *rig)
		cid   string
		turn  int64
		model string
		code  string
	}{
		{"no compactionId", func(r *rig) {}, "", 0, "m1", diag.CompactionScopeUnavailable},
		{"a bracket never seen", func(r *rig) {}, "c1", 0, "m1", diag.CompactionBoundaryUnavailable},
		{"another agent's bracket", func(r *rig) { r.startCompaction("s2", "c1", nil) }, "c1", 0, "m1", diag.CompactionScopeMismatch},
		{"another turn's bracket", func(r *rig) { r.mustAdmit("s1", 1, 1, "r1"); r.startCompaction("s1", "c1", turnPtr(1)) }, "c1", 2, "m1", diag.CompactionScopeMismatch},
		{"a turn's bracket without its admission", func(r *rig) { r.startCompaction("s1", "c1", turnPtr(3)) }, "c1", 3, "m1", diag.CompactionBoundaryUnavailable},
		{"the model changed", func(r *rig) {
			r.startCompaction("s1", "c1", nil)
			if _, err := r.summary("s1", "c1", 0, "m1", history); err != nil {
				r.t.Fatal(err)
			}
		}, "c1", 0, "m2", diag.CompactionModelChanged},
		{"the agent cannot be found", func(r *rig) { r.startCompaction("s1", "c1", nil); r.agents.missing["s1"] = true }, "c1", 0, "m1", diag.CompactionAgentUnavailable},
		{"an ended bracket", func(r *rig) { r.startCompaction("s1", "c1", nil); r.endCompaction("s1", "c1", nil, nil) }, "c1", 0, "m1", diag.Revoked},
		{"a disposed agent", func(r *rig) { r.startCompaction("s1", "c1", nil); r.Dispose("s1") }, "c1", 0, "m1", diag.CompactionBoundaryUnavailable},
		{"the 65th open bracket", func(r *rig) {
			for i := 0; i <= maxOpenBrackets; i++ {
				r.startCompaction("s1", fmt.Sprintf("c%d", i), nil)
			}
		}, fmt.Sprintf("c%d", maxOpenBrackets), 0, "m1", diag.CompactionLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.policy.set("s1", true)
			c.setup(r)
			_, err := r.summary("s1", c.cid, c.turn, c.model, history)
			wantCode(t, err, c.code)
		})
	}
}

// At most 64 brackets are open and 128 statuses kept; the oldest statuses
// go first and then read as unknown.
func TestBracketLimits(t *testing.T) {
	r := newRig(t)
	for i := 0; i < maxStatuses+10; i++ {
		id := fmt.Sprintf("c%d", i)
		r.startCompaction("s1", id, nil)
		r.endCompaction("s1", id, nil, "failed")
	}
	if got := r.state("s1", "c0"); got != StateUnknown {
		t.Fatalf("the oldest status was kept: %s", got)
	}
	if got := r.state("s1", fmt.Sprintf("c%d", maxStatuses+9)); got != StateFailed {
		t.Fatalf("the newest status = %s", got)
	}
	r.mu.Lock()
	n := len(r.sessions["s1"].comp.settled)
	r.mu.Unlock()
	if n != maxStatuses {
		t.Fatalf("%d statuses kept", n)
	}
	for i := 0; i <= maxOpenBrackets; i++ {
		r.startCompaction("s1", fmt.Sprintf("open%d", i), nil)
	}
	if got := r.state("s1", fmt.Sprintf("open%d", maxOpenBrackets)); got != StateUnknown {
		t.Fatalf("the 65th bracket was opened: %s", got)
	}
}

// DSH marks the checkpoint {kind:"plugin", plugin:"compact"} (0.1.x) or
// {kind:"compact-checkpoint"} (0.1.7, 0.2.x), and its compaction/end has
// no error member: both brackets complete. A turn/end whose reason is an
// object ends its turn.
func TestCheckpointInBothDSHFormats(t *testing.T) {
	for _, src := range []map[string]any{
		{"kind": "plugin", "plugin": "compact", "compactionId": "c1"},
		{"kind": "compact-checkpoint", "compactionId": "c1"},
	} {
		r := newRig(t)
		r.policy.set("s1", true)
		r.startCompaction("s1", "c1", nil)
		r.event("s1", "user/message", map[string]any{"role": "user", "source": src,
			"content": []map[string]any{{"type": "text", "text": "summary"}}})
		r.event("s1", "compaction/end", map[string]any{"compactionId": "c1", "turn": nil})
		if id, st, _ := r.Compaction("s1"); id != "c1" || st != StateCompleted {
			t.Fatalf("%v: %s %s", src, id, st)
		}
	}
	r := newRig(t)
	r.mustAdmit("s1", 1, 1, "r1")
	r.event("s1", "turn/end", map[string]any{"turn": 1, "reason": map[string]any{"kind": "aborted", "reason": map[string]any{"kind": "user"}}})
	if _, running := r.ActiveTurnEnabled("s1"); running {
		t.Fatal("turn/end with an object reason did not end the turn")
	}
	r.mustAdmit("s1", 2, 1, "r2")
}

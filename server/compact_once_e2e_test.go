package server_test

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// Issue 28 #9 (seed 003): `/copilot-compact visible-history` is one
// operation. continuity/compactVisibleHistory lets exactly the next manual
// compaction of a session whose policy is off omit historical encrypted
// reasoning; the following manual compaction is native again, and the
// Session policy and the settings are untouched (the consent is never
// persisted).
func TestDSHCompactVisibleHistoryIsOneOperation(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	s := dshHOpen(t, h, "sess-compact", true) // seeded: the policy resolves off
	s.prompt(t, 1, "Summarise where we are.")
	if _, rerr := s.request(t, 1, 1, "req_1_1", "acct-A"); rerr != nil {
		t.Fatal(rerr)
	}
	s.answer(t, 1, "Here is where we are.")
	before, rev := h.Settings("github-copilot")
	body := payloadgen.Generate(payloadgen.Spec{Seed: 31, Size: 32 << 10, Reasoning: 3, ToolOutputBytes: 128}).Body
	summary := func(cid string) string {
		t.Helper()
		params := []byte(`{"requestId":"sum-` + cid + `","sessionId":"` + s.id + `","turn":null,"step":1,"provider":"github-copilot-preview",` +
			`"model":"` + turnsXModel + `","purpose":"compaction","compactionId":"` + cid + `","payload":` + string(body) + `}`)
		res, rerr, err := h.CallRaw(ctxT(t), "llm/payload", params)
		if err != nil || rerr != nil {
			t.Fatalf("summary %s: %v %v", cid, rerr, err)
		}
		return gjson.GetBytes(res, "outcome").Str
	}
	compaction := func(cid string) string {
		t.Helper()
		s.event(t, "compaction/start", dsh.CompactionStart(cid, nil))
		out := summary(cid)
		s.event(t, "compaction/summary", dsh.CompactionSummary(cid, "Where we are.", 0, s.seq-1, "github-copilot-preview", turnsXModel))
		s.event(t, "user/message", dsh.Format4.Checkpoint("chk-"+cid, cid, "Where we are."))
		s.event(t, "compaction/end", dsh.CompactionEnd(cid, nil, ""))
		return out
	}
	if got := compaction("cmp-0"); got != "native" {
		t.Fatalf("a manual compaction with the policy off: %s", got)
	}
	r, err := h.RemoteInvoke(ctxT(t), "continuity", "compactVisibleHistory", map[string]any{"agentId": s.id})
	if err != nil || !r.OK || !gjson.GetBytes(r.Value, "authorized").Bool() {
		t.Fatalf("compactVisibleHistory: %v %+v %s", err, r.Error, r.Value)
	}
	if got := compaction("cmp-1"); got != "filtered" {
		t.Fatalf("the authorized compaction: %s", got)
	}
	if got := compaction("cmp-2"); got != "native" {
		t.Fatalf("the grant covered a second compaction: %s", got)
	}
	if v := dshView(t, h, s.id); gjson.GetBytes(v, "enabled").Bool() || gjson.GetBytes(v, "source").Str != "default" {
		t.Fatalf("the Session policy changed: %s", v)
	}
	if after, rev2 := h.Settings("github-copilot"); string(after) != string(before) || rev2 != rev {
		t.Fatalf("settings were written: %s (rev %d → %d)", after, rev, rev2)
	}

	// Named, it applies to that open bracket.
	s.event(t, "compaction/start", dsh.CompactionStart("cmp-3", nil))
	if r, err := h.RemoteInvoke(ctxT(t), "continuity", "compactVisibleHistory", map[string]any{"agentId": s.id, "compactionId": "cmp-3"}); err != nil || !r.OK {
		t.Fatalf("compactVisibleHistory for an open bracket: %v %+v", err, r.Error)
	}
	if got := summary("cmp-3"); got != "filtered" {
		t.Fatalf("the named open bracket: %s", got)
	}
}

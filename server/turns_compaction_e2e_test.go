package server_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/fixtures/supplier"
)

func turnsXCompaction(t *testing.T, h *host.Host, sid, typ, cid string, turn any, extra map[string]any) {
	t.Helper()
	d := map[string]any{"compactionId": cid, "turn": turn}
	for k, v := range extra {
		d[k] = v
	}
	turnsXEvent(t, h, sid, "compaction/"+typ, d, nil)
}

// turnsXCheckpoint is the user/message that replaces history for cid.
func turnsXCheckpoint(t *testing.T, h *host.Host, sid, cid string) {
	t.Helper()
	turnsXEvent(t, h, sid, "user/message", map[string]any{"content": "SUMMARY-TEXT-NEVER-IN-NOTICES",
		"source": map[string]any{"kind": "compact-checkpoint", "compactionId": cid}}, nil)
}

// turnsXCompactionState reads the bracket's state from its live notice.
func turnsXCompactionState(t *testing.T, h *host.Host, sid, cid string) string {
	t.Helper()
	n, ok := turnsXNotice(t, h, sid, "compaction:"+cid)
	if !ok || n.Compaction == nil {
		t.Fatalf("no notice for compaction %s", cid)
	}
	return n.Compaction.State
}

// An idle manual compaction over 17 MiB of historical encrypted reasoning:
// the summary payload carries none of it and keeps every visible item, and
// the bracket completes only after the checkpoint replaced history.
func TestTurnsCompactionOmitsAllHistory(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "s1", true)
	gen := payloadgen.Generate(payloadgen.Spec{Seed: 17, Size: 18 << 20, Reasoning: 64, ToolOutputBytes: 2048})
	if gen.CipherBytes() < 17<<20 {
		t.Fatalf("only %d bytes of ciphertext", gen.CipherBytes())
	}
	// An end without the checkpoint is not success.
	turnsXCompaction(t, h, "s1", "start", "c2", nil, nil)
	turnsXCompaction(t, h, "s1", "end", "c2", nil, nil)
	if st := turnsXCompactionState(t, h, "s1", "c2"); st != "failed" {
		t.Fatalf("an end without checkpoint: %s", st)
	}
	turnsXCompaction(t, h, "s1", "start", "c1", nil, nil)
	res, rerr := turnsXSummary(t, h, "s1", "c1", 0, turnsXModel, gen.Body)
	if rerr != nil || res.Outcome != "filtered" || res.Omitted.Items != 64 || res.Omitted.CodeUnits < 17<<20 {
		t.Fatalf("summary: %s %+v %v", res.Outcome, res.Omitted, rerr)
	}
	if ids := turnsXReasoningIDs(res.Payload); len(ids) != 0 {
		t.Fatalf("the summary payload kept reasoning %v", ids)
	}
	visible := func(b []byte) int {
		n := 0
		gjson.GetBytes(b, "input").ForEach(func(_, it gjson.Result) bool {
			if it.Get("type").Str != "reasoning" {
				n++
			}
			return true
		})
		return n
	}
	if visible(res.Payload) != visible(gen.Body) {
		t.Fatalf("visible items: %d of %d kept", visible(res.Payload), visible(gen.Body))
	}
	v := turnsXNotices(t, h, "s1")
	if v.PollMs == nil || turnsXCompactionState(t, h, "s1", "c1") != "running" {
		t.Fatalf("while running: %+v", v)
	}
	// The summary alone settles nothing.
	turnsXCompaction(t, h, "s1", "summary", "c1", nil, nil)
	if st := turnsXCompactionState(t, h, "s1", "c1"); st != "running" {
		t.Fatalf("after the summary: %s", st)
	}
	turnsXCheckpoint(t, h, "s1", "c1")
	turnsXCompaction(t, h, "s1", "end", "c1", nil, nil)
	if st := turnsXCompactionState(t, h, "s1", "c1"); st != "completed" {
		t.Fatalf("after the checkpoint: %s", st)
	}
	if v := turnsXNotices(t, h, "s1"); v.PollMs != nil {
		t.Fatal("clients are told to poll after every bracket settled")
	}
	var view struct {
		Compaction *struct{ ID, State string } `json:"compaction"`
	}
	if err := json.Unmarshal(turnsXRemote(t, h, "get", map[string]any{"agentId": "s1"}), &view); err != nil || view.Compaction == nil || view.Compaction.State != "completed" {
		t.Fatalf("view: %+v %v", view.Compaction, err)
	}
	turnsXWaitNotice(t, h, "compaction:c1", "notice.compaction.completed")
	for _, ev := range h.RemoteEvents("continuity.notice") {
		if bytes.Contains(ev.Args, []byte("SUMMARY-TEXT")) || bytes.Contains(ev.Args, []byte("gAAAA")) {
			t.Fatal("a notice carried message text or ciphertext")
		}
	}
}

// A compaction that fails with the replay error while the policy is off is
// blocked, and the notice offers to enable the policy.
func TestTurnsCompactionBlockedWhileOff(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "s1", false)
	sup, err := supplier.New(supplier.PiAI())
	if err != nil {
		t.Fatal(err)
	}
	var rej *supplier.Rejection
	if err := sup.Verify("acct-A", turnsXBody(t, "t2-s1-acct-A.json")); !errors.As(err, &rej) {
		t.Fatalf("the unfiltered body was not rejected: %v", err)
	}
	turnsXCompaction(t, h, "s1", "start", "c1", nil, nil)
	if res, rerr := turnsXSummary(t, h, "s1", "c1", 0, turnsXModel, turnsXBody(t, "t2-s1-acct-A.json")); rerr != nil || res.Outcome != "native" {
		t.Fatalf("summary while off: %s %v", res.Outcome, rerr)
	}
	turnsXCompaction(t, h, "s1", "end", "c1", nil, map[string]any{"error": string(rej.Body)})
	n := turnsXWaitNotice(t, h, "compaction:c1", "notice.compaction.blocked")
	if n.Policy != "off" || n.Offer == nil || n.Offer.DisclosureKey != "offer.disclosure" {
		t.Fatalf("blocked notice = %+v", n)
	}
}

// Every COMPACTION_* refusal, each in its own session.
func TestTurnsCompactionRefusals(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	body := turnsXBody(t, "t2-s1-acct-A.json")
	for _, c := range []struct {
		name, code string
		setup      func(sid string)
		turn       int
		model      string
	}{
		{"a bracket never seen", "COMPACTION_BOUNDARY_UNAVAILABLE", func(string) {}, 0, turnsXModel},
		{"another agent's bracket", "COMPACTION_SCOPE_MISMATCH", func(sid string) {
			turnsXSession(t, h, sid+"-other", true)
			turnsXCompaction(t, h, sid+"-other", "start", "c-"+sid, nil, nil)
		}, 0, turnsXModel},
		{"a turn's bracket whose turn was never admitted", "COMPACTION_BOUNDARY_UNAVAILABLE", func(sid string) {
			turnsXCompaction(t, h, sid, "start", "c-"+sid, 5, nil)
		}, 5, turnsXModel},
		{"the model changed", "COMPACTION_MODEL_CHANGED", func(sid string) {
			turnsXCompaction(t, h, sid, "start", "c-"+sid, nil, nil)
			if _, rerr := turnsXSummary(t, h, sid, "c-"+sid, 0, turnsXModel, body); rerr != nil {
				t.Fatal(rerr)
			}
		}, 0, "gpt-4.1"},
		{"the agent cannot be looked up", "COMPACTION_AGENT_UNAVAILABLE", func(sid string) {
			turnsXCompaction(t, h, sid, "start", "c-"+sid, nil, nil)
			h.RemoveAgent(sid)
		}, 0, turnsXModel},
		{"the 65th open bracket", "COMPACTION_LIMIT", func(sid string) {
			for i := 0; i < 64; i++ {
				turnsXCompaction(t, h, sid, "start", fmt.Sprintf("open-%d", i), nil, nil)
			}
			turnsXCompaction(t, h, sid, "start", "c-"+sid, nil, nil)
		}, 0, turnsXModel},
	} {
		sid := fmt.Sprintf("cr%d", len(c.name))
		turnsXSession(t, h, sid, true)
		c.setup(sid)
		_, rerr := turnsXSummary(t, h, sid, "c-"+sid, c.turn, c.model, body)
		turnsXWantCode(t, c.name, rerr, c.code)
	}
}

// A legacy one-turn consent covers exactly one turn and never a summary;
// an idle manual compaction reads the current persistent policy.
func TestTurnsConsentAndCompactionPolicy(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "s1", false)
	history := turnsXBody(t, "t2-s1-acct-A.json")
	turnsXRemote(t, h, "authorizeNext", map[string]any{"agentId": "s1", "revision": turnsXRevision(t, h, "s1"), "enabled": true})
	adm, rerr := turnsXAdmit(t, h, "s1", 1, 1, "r1", "acct-A", turnsXModel)
	if rerr != nil || adm == nil || !adm.Enabled || adm.Source != "next-turn" {
		t.Fatalf("consented turn: %+v %v", adm, rerr)
	}
	if res, rerr := turnsXChat(t, h, "s1", 1, 1, "r1", history); rerr != nil || res.Outcome != "filtered" {
		t.Fatalf("consented chat: %s %v", res.Outcome, rerr)
	}
	turnsXCompaction(t, h, "s1", "start", "c1", 1, nil)
	if res, rerr := turnsXSummary(t, h, "s1", "c1", 1, turnsXModel, history); rerr != nil || res.Outcome != "native" {
		t.Fatalf("the consent covered a summary: %s %v", res.Outcome, rerr)
	}
	turnsXEndTurn(t, h, "s1", 1)
	if adm, rerr := turnsXAdmit(t, h, "s1", 2, 1, "r2", "acct-A", turnsXModel); rerr != nil || adm == nil || adm.Enabled {
		t.Fatalf("the consent covered a second turn: %+v %v", adm, rerr)
	}
	turnsXEndTurn(t, h, "s1", 2)

	// Turned on between turns: an idle manual summary uses it at once.
	turnsXRemote(t, h, "set", map[string]any{"agentId": "s1", "revision": turnsXRevision(t, h, "s1"), "enabled": true})
	turnsXCompaction(t, h, "s1", "start", "c2", nil, nil)
	if res, rerr := turnsXSummary(t, h, "s1", "c2", 2, turnsXModel, history); rerr != nil || res.Outcome != "filtered" {
		t.Fatalf("idle manual summary after enabling: %s %v", res.Outcome, rerr)
	}
}

// A bracket whose start the plugin never saw (it restarted inside it) ends
// as unknown, never guessed — and is not offered to the view as settled.
func TestTurnsCompactionUnseenIsUnknown(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "s1", true)
	turnsXCheckpoint(t, h, "s1", "c-before-restart")
	turnsXCompaction(t, h, "s1", "end", "c-before-restart", nil, nil)
	turnsXWaitNotice(t, h, "compaction:c-before-restart", "notice.compaction.unknown")
	var view struct {
		Compaction *struct{ ID, State string } `json:"compaction"`
	}
	if err := json.Unmarshal(turnsXRemote(t, h, "get", map[string]any{"agentId": "s1"}), &view); err != nil || view.Compaction != nil {
		t.Fatalf("view: %+v %v", view.Compaction, err)
	}
}

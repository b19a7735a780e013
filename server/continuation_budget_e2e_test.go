package server_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
)

// contBigTurns is how many large assistant messages the cited range holds:
// 24 × ~6 KB is about 36 000 estimated tokens, half again the default
// projection budget (continuation.Options.TokenBudget, 24 000), which the
// plugin does not let a host or model change.
const contBigTurns = 24

// contSeedBig writes a session whose cited work (events 4…27) cannot fit
// one projection, then the initiating message (seq 31).
func contSeedBig(t *testing.T, h *host.Host, sid string) {
	t.Helper()
	contEvent(t, h, sid, 1, "session/created", `{}`)
	contEvent(t, h, sid, 2, "turn/start", `{"turn":0}`)
	contEvent(t, h, sid, 3, "user/message", `{"text":"Audit every importer module."}`)
	for i := 0; i < contBigTurns; i++ {
		body := fmt.Sprintf("Module %02d: %s", i, strings.Repeat("findings ", 660))
		contEvent(t, h, sid, int64(4+i), "assistant/message", fmt.Sprintf(`{"text":%q}`, body))
	}
	contEvent(t, h, sid, 28, "turn/end", `{"turn":0,"reason":"completed"}`)
	contEvent(t, h, sid, 29, "turn/start", `{"turn":1}`)
	contEvent(t, h, sid, 30, "assistant/message", `{"text":"The audit is written up."}`)
	contEvent(t, h, sid, 31, "user/message", contInitiating)
}

// TestContinuationBudgetOmitsAndRecalls: sources that do not fit the budget
// are each listed as omitted with reason "budget" (in the manifest and in
// the context's omitted section); control, state, the initiating message
// and the handoff are still in the context; session_recall of an omitted
// range returns the host's exact events; and once the source is revoked the
// recall is an unavailable breadcrumb with nothing substituted.
func TestContinuationBudgetOmitsAndRecalls(t *testing.T) {
	reg := newContSessions()
	h := contStart(t, t.TempDir(), reg)
	const a = "ses-big"
	contSeedBig(t, h, a)
	args := contArgs(a)
	args["sources"] = []any{
		map[string]any{"kind": "session_events", "sessionId": a, "fromEventId": "4", "toEventId": "27", "relevance": "the audit findings"},
		map[string]any{"kind": "resource", "url": "https://example.org/importers/spec", "version": "v3", "relevance": "importer spec"},
		map[string]any{"kind": "memory", "path": "notes/importers.md", "relevance": "team notes"},
	}
	var c contContinued
	contOK(t, "continue_session", contCall(t, h, a, "call-cont-1", "continue_session", args), &c)
	proj := reg.sessions()[0].Context
	m := contRemote(t, h, "manifest", map[string]string{"manifestId": c.ManifestID})

	for _, kind := range []string{"control", "lineage", "state", "initiating_message", "handoff", "omitted"} {
		contSection(t, proj, kind)
	}
	if got := contSection(t, proj, "initiating_message").Get("text").Raw; got != gjson.Get(contInitiating, "text").Raw {
		t.Errorf("initiating message over budget = %s", got)
	}
	omitted := gjson.GetBytes(m, "omitted").Array()
	if len(omitted) == 0 {
		t.Fatalf("nothing omitted from %d tokens of sources: %s", contBigTurns*1600, gjson.GetBytes(m, "tokens").Raw)
	}
	if sec := contSection(t, proj, "omitted").Get("omitted"); sec.Raw != gjson.GetBytes(m, "omitted").Raw {
		t.Errorf("the context's omitted section differs from the manifest:\n%s\n%s", sec.Raw, gjson.GetBytes(m, "omitted").Raw)
	}
	cold := map[int64]int{}
	for _, it := range omitted {
		want := "budget"
		if it.Get("tier").String() == "history" {
			want = "not_selected" // never offered: the rest of the predecessor, accounted for
		}
		if it.Get("reason").String() != want || it.Get("mode").Exists() {
			t.Errorf("omitted item without its reason: %s", it.Raw)
		}
		if sp := contItemSpan(it); sp.session == a {
			for q := sp.from; q <= sp.to; q++ {
				if cold[q]++; cold[q] > 1 {
					t.Errorf("event %d is listed as omitted more than once", q)
				}
			}
		}
	}
	// The budget holds with the omitted list paid from it (issue 16: it
	// was added after the budget was filled).
	if gjson.GetBytes(m, "tokens.used").Int() > gjson.GetBytes(m, "tokens.budget").Int() || gjson.GetBytes(m, "tokens.overBudget").Bool() {
		t.Errorf("over budget with only optional sources to drop: tokens = %s", gjson.GetBytes(m, "tokens").Raw)
	}
	if used := gjson.GetBytes(proj, "tokens.used").Int(); used != gjson.GetBytes(m, "tokens.used").Int() {
		t.Errorf("the context's token account %d differs from the manifest's %s", used, gjson.GetBytes(m, "tokens").Raw)
	}
	// Every predecessor event the successor did not receive is named once:
	// the initiating message is in the context, every other event of the
	// session (1–31) is in exactly one included or omitted item.
	named := map[int64]int{}
	for _, it := range append(gjson.GetBytes(m, "included").Array(), omitted...) {
		if sp := contItemSpan(it); sp.session == a {
			for q := sp.from; q <= sp.to; q++ {
				named[q]++
			}
		}
	}
	for q := int64(1); q <= 31; q++ {
		want := 1
		if q == 31 {
			want = 0 // the initiating message, carried in its own section
		}
		if named[q] != want {
			t.Errorf("predecessor event %d is named %d times in the manifest, want %d", q, named[q], want)
		}
	}

	// Every cited source is accounted for: each event of the range is in
	// exactly one pinned item, included or omitted; each reference is
	// included or omitted.
	covered := map[int64]int{}
	refs := map[string]int{}
	all := append(gjson.GetBytes(m, "included").Array(), omitted...)
	for _, it := range all {
		if it.Get("tier").String() != "pinned" {
			continue
		}
		switch it.Get("kind").String() {
		case "resource":
			refs[it.Get("url").String()]++
		case "memory":
			refs[it.Get("path").String()]++
		default:
			sp := contItemSpan(it)
			if sp.session != a || it.Get("events").Int() != sp.to-sp.from+1 {
				t.Errorf("pinned item %s counts %d events", sp, it.Get("events").Int())
			}
			for q := sp.from; q <= sp.to; q++ {
				covered[q]++
			}
		}
	}
	for q := int64(4); q <= 27; q++ {
		if covered[q] != 1 {
			t.Errorf("event %d is in %d pinned items, want 1", q, covered[q])
		}
	}
	if refs["https://example.org/importers/spec"] != 1 || refs["notes/importers.md"] != 1 {
		t.Errorf("references accounted for: %v", refs)
	}

	// Recall, from the successor, of the first omitted pinned range.
	var span contSpan
	for _, it := range omitted {
		if it.Get("tier").String() == "pinned" && it.Get("sessionId").String() == a {
			span = contItemSpan(it)
			break
		}
	}
	if span.session == "" {
		t.Fatalf("no pinned range was omitted: %s", gjson.GetBytes(m, "omitted").Raw)
	}
	recallArgs := map[string]string{"sessionId": a, "fromEventId": fmt.Sprint(span.from), "toEventId": fmt.Sprint(span.to)}
	var rec struct {
		Events []struct {
			EventID string `json:"eventId"`
			Type    string `json:"type"`
			Data    []byte `json:"-"`
		} `json:"events"`
		Unavailable []any `json:"unavailable"`
	}
	res := contCall(t, h, c.SuccessorID, "call-recall-1", "session_recall", recallArgs)
	contOK(t, "session_recall", res, &rec)
	log := h.SessionLog(a)
	got := gjson.GetBytes(res.Structured, "events").Array()
	if len(got) != int(span.to-span.from+1) || len(rec.Unavailable) != 0 {
		t.Fatalf("recall %s returned %d events, %d unavailable", span, len(got), len(rec.Unavailable))
	}
	for i, e := range got {
		want := log[span.from-1+int64(i)]
		if e.Get("eventId").Int() != want.Seq || e.Get("type").String() != want.Type ||
			!bytes.Equal([]byte(e.Get("data").Raw), want.Data) || e.Get("time").Raw != string(want.Time) {
			t.Errorf("recalled event %s differs from the host's event %d", e.Get("eventId"), want.Seq)
		}
	}

	h.Revoke(a)
	res = contCall(t, h, c.SuccessorID, "call-recall-2", "session_recall", recallArgs)
	contOK(t, "session_recall", res, &rec)
	un := gjson.GetBytes(res.Structured, "unavailable")
	if len(rec.Events) != 0 || un.Get("#").Int() != 1 || un.Get("0.code").String() != "CONTINUITY_SOURCE_UNAVAILABLE" ||
		un.Get("0.hostCode").String() != "session-not-found" {
		t.Errorf("recall of a revoked source = %s", res.Structured)
	}
	// The record of what was selected stays inspectable.
	contRemote(t, h, "handoff", map[string]string{"edgeId": c.EdgeID})
	// A further continuation from the successor, whose lineage holds the
	// revoked session, cannot cite it: the source is unavailable, and
	// nothing newer or paraphrased stands in for it.
	succ := c.SuccessorID
	contEvent(t, h, succ, 1, "session/created", `{}`)
	contEvent(t, h, succ, 2, "user/message", `{"text":"Use the audit."}`)
	cite := contArgs(succ)
	cite["sources"] = []any{map[string]any{"kind": "session_event", "sessionId": a, "eventId": "4", "relevance": "audit"}}
	if code := contErrCode(t, contCall(t, h, succ, "call-cont-d", "continue_session", cite)); code != "CONTINUITY_SOURCE_UNAVAILABLE" {
		t.Errorf("citing a revoked source: code %s", code)
	}
	// A session outside the lineage cannot be cited at all.
	const d = "ses-d"
	contEvent(t, h, d, 1, "session/created", `{}`)
	contEvent(t, h, d, 2, "user/message", `{"text":"Use the audit."}`)
	cite = contArgs(d)
	cite["sources"] = []any{map[string]any{"kind": "session_event", "sessionId": succ, "eventId": "2", "relevance": "audit"}}
	if code := contErrCode(t, contCall(t, h, d, "call-cont-e", "continue_session", cite)); code != "CONTINUITY_LINEAGE_FORBIDDEN" {
		t.Errorf("citing a session outside the lineage: code %s", code)
	}
}

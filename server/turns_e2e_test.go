package server_test

import (
	"bytes"
	"encoding/json"
	"github.com/continuity-dev/continuity/filter/payloadgen"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// turnsXFixtures is the repository copy of the real pi-ai request bodies.
var turnsXFixtures = filepath.Join("..", "fixtures", "supplier", "testdata", "pi-ai-abab")

type turnsXRecord struct {
	File        string   `json:"file"`
	Turn        int      `json:"turn"`
	Step        int      `json:"step"`
	Account     string   `json:"account"`
	WouldReject []string `json:"wouldReject"`
}

func turnsXManifest(t *testing.T) []turnsXRecord {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(turnsXFixtures, "manifest.json"))
	if err != nil {
		t.Fatalf("pi-ai fixtures: %v", err)
	}
	var m struct {
		Records []turnsXRecord `json:"records"`
	}
	if err := json.Unmarshal(b, &m); err != nil || len(m.Records) != 8 {
		t.Fatalf("manifest: %v (%d records)", err, len(m.Records))
	}
	return m.Records
}

func turnsXBody(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(turnsXFixtures, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// turnsXReasoningIDs lists the ids of the top-level reasoning items.
func turnsXReasoningIDs(body []byte) []string {
	var ids []string
	gjson.GetBytes(body, "input").ForEach(func(_, it gjson.Result) bool {
		if it.Get("type").Str == "reasoning" {
			ids = append(ids, it.Get("id").Str)
		}
		return true
	})
	return ids
}

// A-B-B-A over four turns of two steps (a tool call, then an answer), with
// the exact bytes pi-ai sent: every filtered body is accepted by the
// supplier double for the account it goes to, although the unfiltered ones
// are rejected; each turn's first payload carries no earlier reasoning and
// its second step keeps exactly the reasoning made during the turn.
func TestTurnsABBAAcceptedForEveryAccount(t *testing.T) {
	recs := turnsXManifest(t)
	sup, err := supplier.New(supplier.PiAI())
	if err != nil {
		t.Fatal(err)
	}
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "abab", true)
	var firstIDs []string
	account := ""
	for _, rec := range recs {
		body := turnsXBody(t, rec.File)
		if rec.Step == 1 {
			if rec.Turn > 1 {
				turnsXEndTurn(t, h, "abab", rec.Turn-1)
			}
			if rec.Account != account {
				turnsXEvent(t, h, "abab", "account/selected", map[string]any{"accountId": rec.Account}, nil)
				account = rec.Account
			}
			turnsXEvent(t, h, "abab", "turn/start", map[string]any{"turn": rec.Turn}, nil)
		}
		turnsXEvent(t, h, "abab", "step/start", map[string]any{"turn": rec.Turn, "step": rec.Step}, nil)
		rid := rec.File
		if adm, rerr := turnsXAdmit(t, h, "abab", rec.Turn, rec.Step, rid, rec.Account, turnsXModel); rerr != nil || adm == nil || !adm.Enabled {
			t.Fatalf("%s: admission %+v %v", rec.File, adm, rerr)
		}
		res, rerr := turnsXChat(t, h, "abab", rec.Turn, rec.Step, rid, body)
		if rerr != nil {
			t.Fatalf("%s: %v", rec.File, rerr)
		}
		sent := body
		if res.Outcome == "filtered" {
			sent = res.Payload
		}
		if err := sup.Verify(rec.Account, sent); err != nil {
			t.Errorf("%s: the supplier rejects the filtered body: %v", rec.File, err)
		}
		if len(rec.WouldReject) > 0 && sup.Verify(rec.Account, body) == nil {
			t.Errorf("%s: the unfiltered body is accepted, so this check proves nothing", rec.File)
		}
		in, kept := turnsXReasoningIDs(body), turnsXReasoningIDs(sent)
		if rec.Step == 1 {
			firstIDs = in
			if len(kept) != 0 || res.Omitted.Items != len(in) {
				t.Errorf("%s: the first payload kept %v (omitted %d of %d)", rec.File, kept, res.Omitted.Items, len(in))
			}
			continue
		}
		var own []string
		for _, id := range in {
			if !slices.Contains(firstIDs, id) {
				own = append(own, id)
			}
		}
		if !slices.Equal(kept, own) || len(own) == 0 {
			t.Errorf("%s: kept %v, want the turn's own %v", rec.File, kept, own)
		}
	}
	// The last turn's notice reports what it omitted (all history of its
	// first payload), and no notice carries ciphertext.
	n, ok := turnsXNotice(t, h, "abab", "turn:4")
	if !ok || n.Kind != "filtered" || n.Filtered == nil || n.Filtered.Items != len(firstIDs) || n.Filtered.CodeUnits == 0 {
		t.Fatalf("turn 4 notice = %+v", n)
	}
	for _, ev := range h.RemoteEvents("continuity.notice") {
		if bytes.Contains(ev.Args, []byte("gAAAA")) {
			t.Fatal("a notice carried ciphertext")
		}
	}
}

// Admission: one per session and turn; TURN_UNSETTLED before turn/end,
// TURN_INVALID after it; a model change or disposal revokes the turn, and
// a late payload of a revoked turn is REVOKED, never sent native.
func TestTurnsAdmissionAndRevocation(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "s1", true)
	plain := []byte(`{"model":"gpt-5.4","input":[{"role":"user","content":"hi"}]}`)
	if _, rerr := turnsXAdmit(t, h, "s1", 1, 1, "r1", "acct-A", turnsXModel); rerr != nil {
		t.Fatal(rerr)
	}
	_, rerr := turnsXAdmit(t, h, "s1", 2, 1, "r2", "acct-A", turnsXModel)
	turnsXWantCode(t, "turn 2 before turn/end of 1", rerr, "TURN_UNSETTLED")
	turnsXEndTurn(t, h, "s1", 1)
	_, rerr = turnsXAdmit(t, h, "s1", 1, 2, "r1b", "acct-A", turnsXModel)
	turnsXWantCode(t, "an ended turn", rerr, "TURN_INVALID")
	_, rerr = turnsXChat(t, h, "s1", 1, 1, "r1", plain)
	turnsXWantCode(t, "a payload of an ended turn", rerr, "REVOKED")

	// A model change inside turn 2 revokes it.
	if _, rerr := turnsXAdmit(t, h, "s1", 2, 1, "r2", "acct-A", turnsXModel); rerr != nil {
		t.Fatal(rerr)
	}
	if _, rerr := turnsXAdmit(t, h, "s1", 2, 2, "r2b", "acct-A", "gpt-4.1"); rerr != nil {
		t.Fatal(rerr)
	}
	_, rerr = turnsXChat(t, h, "s1", 2, 1, "r2", plain)
	turnsXWantCode(t, "after a model change", rerr, "REVOKED")

	// Disposal: the bound request stays known and is REVOKED.
	if _, rerr := turnsXAdmit(t, h, "s1", 3, 1, "r3", "acct-A", turnsXModel); rerr != nil {
		t.Fatal(rerr)
	}
	if err := h.Dispose("s1"); err != nil {
		t.Fatal(err)
	}
	_, rerr = turnsXChat(t, h, "s1", 3, 1, "r3", plain)
	turnsXWantCode(t, "after agent/disposed", rerr, "REVOKED")
}

// A later step with no first step seen (a restart inside a turn) fails
// explicitly, and the user sees the code.
func TestTurnsStepTwoWithoutStepOne(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "s1", true)
	if _, rerr := turnsXAdmit(t, h, "s1", 7, 2, "r7", "", turnsXModel); rerr != nil {
		t.Fatal(rerr)
	}
	_, rerr := turnsXChat(t, h, "s1", 7, 2, "r7", turnsXBody(t, "t2-s2-acct-A.json"))
	turnsXWantCode(t, "step 2 without step 1", rerr, "TURN_BOUNDARY_UNAVAILABLE")
	n := turnsXWaitNotice(t, h, "diagnostic:r7", "notice.diagnostic")
	if n.Code != "COPILOT_CONTINUATION_TURN_BOUNDARY_UNAVAILABLE" {
		t.Fatalf("notice = %+v", n)
	}
}

// Only github-copilot-preview Responses chat and compaction take part.
func TestTurnsOnlyManagedResponsesTakePart(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "s1", true)
	if _, rerr := turnsXAdmit(t, h, "s1", 1, 1, "r1", "", turnsXModel); rerr != nil {
		t.Fatal(rerr)
	}
	history := turnsXBody(t, "t2-s1-acct-A.json")
	for _, c := range []struct {
		name, provider, purpose string
		body                    []byte
	}{
		{"chat completions", "github-copilot-preview", "chat", []byte(`{"model":"gpt-5.4","messages":[{"role":"user","content":"hi"}]}`)},
		{"another provider's compaction", "openai", "compaction", history},
		{"a title", "github-copilot-preview", "title", history},
	} {
		res, rerr := turnsXSend(t, h, host.PayloadParams{RequestID: "r1", SessionID: "s1", Turn: 1, Step: 1,
			Provider: c.provider, Model: turnsXModel, Purpose: c.purpose, CompactionID: "c1", Payload: c.body})
		if rerr != nil || res.Outcome != "native" || res.Payload != nil {
			t.Errorf("%s: %s %v", c.name, res.Outcome, rerr)
		}
	}
}

// After a 408, a retry of the request returns the recorded final bytes,
// byte for byte, while the turn is current; once it ended, REVOKED.
func TestTurnsExactRetryAfter408(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "s1", true)
	body := turnsXBody(t, "t2-s1-acct-A.json")
	if _, rerr := turnsXAdmit(t, h, "s1", 1, 1, "r1", "acct-A", turnsXModel); rerr != nil {
		t.Fatal(rerr)
	}
	first, rerr := turnsXChat(t, h, "s1", 1, 1, "r1", body)
	if rerr != nil || first.Outcome != "filtered" {
		t.Fatalf("first: %s %v", first.Outcome, rerr)
	}
	if err := h.LLMResponse("r1", 408, ""); err != nil {
		t.Fatal(err)
	}
	retry := host.PayloadParams{RequestID: "r1-retry", SessionID: "s1", Turn: 1, Step: 1, Provider: "github-copilot-preview",
		Model: turnsXModel, Purpose: "chat", RetryOf: "r1", Payload: body}
	again, rerr := turnsXSend(t, h, retry)
	if rerr != nil || again.Outcome != "filtered" || !bytes.Equal(again.Payload, first.Payload) ||
		again.SHA256 != first.SHA256 || again.Omitted != first.Omitted {
		t.Fatalf("retry: %s %v (same bytes: %v)", again.Outcome, rerr, bytes.Equal(again.Payload, first.Payload))
	}
	turnsXEndTurn(t, h, "s1", 1)
	retry.RequestID = "r1-late"
	_, rerr = turnsXSend(t, h, retry)
	turnsXWantCode(t, "a retry after turn/end", rerr, "REVOKED")
}

// TestTurnsExactRetryOutlivesTheFrameBuffer filters a payload of a few MiB
// (its frame is read into a recycled pool buffer, and the filtered bytes are
// written straight from it), sends another large frame that reuses that
// buffer, and then retries the first after a 408: the retry must still get
// exactly the first reply's bytes, which the record copied once the reply
// was written.
func TestTurnsExactRetryOutlivesTheFrameBuffer(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	turnsXSession(t, h, "s1", true)
	gen := func(seed uint64) []byte {
		return payloadgen.Generate(payloadgen.Spec{Seed: seed, Size: 3 << 20, Reasoning: 24, ToolOutputBytes: 4096}).Body
	}
	body1, body2 := gen(1), gen(2)
	if _, rerr := turnsXAdmit(t, h, "s1", 1, 1, "r1", "acct-A", turnsXModel); rerr != nil {
		t.Fatal(rerr)
	}
	first, rerr := turnsXChat(t, h, "s1", 1, 1, "r1", body1)
	if rerr != nil || first.Outcome != "filtered" {
		t.Fatalf("first: %s %v", first.Outcome, rerr)
	}
	if _, rerr := turnsXAdmit(t, h, "s1", 1, 2, "r2", "acct-A", turnsXModel); rerr != nil {
		t.Fatal(rerr)
	}
	if second, rerr := turnsXChat(t, h, "s1", 1, 2, "r2", body2); rerr != nil || second.Outcome == "" {
		t.Fatalf("second: %v", rerr)
	}
	if err := h.LLMResponse("r1", 408, ""); err != nil {
		t.Fatal(err)
	}
	again, rerr := turnsXSend(t, h, host.PayloadParams{RequestID: "r1-retry", SessionID: "s1", Turn: 1, Step: 1,
		Provider: "github-copilot-preview", Model: turnsXModel, Purpose: "chat", RetryOf: "r1", Payload: body1})
	if rerr != nil || !bytes.Equal(again.Payload, first.Payload) || again.SHA256 != first.SHA256 {
		t.Fatalf("retry: %v (same bytes: %v)", rerr, bytes.Equal(again.Payload, first.Payload))
	}
}

package server_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
)

// TestBoundaryQueuedTurnsKeepTheirBoundaries sends two turns back to back,
// faster than the plugin decides: the second turn's decision must still see
// its own fresh witness (APPEND), not a turn emptied by the first decision.
func TestBoundaryQueuedTurnsKeepTheirBoundaries(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	const sid = "ses-fast"
	bndSend(t, h, sid, bndFirstTurn.events...)
	bndSend(t, h, sid, bndTurnStart(6, 1), bndTest(7, "pkg/parse", true, "ok pkg/parse 0.2s", 200),
		bndAssistant(8, "", bndAnn{"next_action", "pkg/parse", "Open a pull request with the fix"}), bndTurnEnd(9, 1))
	rec := bndAwait(t, h, sid, 9, "turn_end")
	bndCheck(t, rec, bndWant{decision: "APPEND", reason: "task_sharpened", pinSource: "first_user_message",
		kept: []string{"test:pkg/parse:stable@7", "next_action:pkg/parse:stable@8"}})
	if n := gjson.GetBytes(rec, "numbers.newWitnesses").Int(); n == 0 {
		t.Errorf("the second turn's decision saw no new witness: %s", rec)
	}
}

// TestBoundaryRefusals: pin_task mistakes come back as isError results in
// the same {error: {code, message, details}} shape as every continuity
// tool; the Remote names an undecided session and bad args.
func TestBoundaryRefusals(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	const sid = "ses-r"
	bndSend(t, h, sid, bndCreated(1), bndAssistant(2, "Hello."))
	for _, c := range []struct {
		name, text, code string
	}{
		{"no user message to pin", "Write the exporter.", "CONTINUITY_PIN_EVENT_UNKNOWN"},
		{"blank task", "   ", "CONTINUITY_PIN_INVALID"},
	} {
		res := contCall(t, h, sid, "call-"+strings.ReplaceAll(c.name, " ", "-"), "pin_task", map[string]string{"text": c.text, "reason": "r"})
		if !res.IsError || gjson.GetBytes(res.Structured, "error.code").String() != c.code ||
			!gjson.GetBytes(res.Structured, "error.details").IsObject() || gjson.GetBytes(res.Structured, "error.message").String() == "" {
			t.Errorf("%s: %s", c.name, res.Raw)
		}
		if strings.Contains(string(res.Raw), "Write the exporter.") {
			t.Errorf("%s: the error repeats the task text", c.name)
		}
	}
	if code := contRemoteErr(t, h, "boundary", map[string]string{"agentId": "ses-never"}); code != "CONTINUITY_BOUNDARY_NOT_DECIDED" {
		t.Errorf("undecided session: %s", code)
	}
	if code := contRemoteErr(t, h, "boundary", map[string]any{"agentId": sid, "extra": 1}); code != "arguments-invalid" {
		t.Errorf("bad args: %s", code)
	}
}

package server_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
)

// bndPinTask calls pin_task and checks its structured result names the
// user message it pinned.
func bndPinTask(t *testing.T, h *host.Host, sid, callID, text, reason string, userSeq int64) {
	t.Helper()
	var r struct {
		Digest  string `json:"digest"`
		EventID string `json:"eventId"`
		Source  string `json:"source"`
	}
	contOK(t, "pin_task", contCall(t, h, sid, callID, "pin_task", map[string]string{"text": text, "reason": reason}), &r)
	if r.Source != "pin_task" || r.EventID != strconv.FormatInt(userSeq, 10) {
		t.Errorf("pin_task pinned %+v, want event %d", r, userSeq)
	}
}

// bndCheck compares a decision record with what the scenario wants. A
// complete reseed must also name the pin (its digest) and the next action
// in its query, which must be smaller than the history it replaces.
func bndCheck(t *testing.T, rec []byte, w bndWant) {
	t.Helper()
	get := func(path string) gjson.Result { return gjson.GetBytes(rec, path) }
	if get("decision").String() != w.decision || get("reason").String() != w.reason {
		t.Errorf("decision %s %s, want %s %s", get("decision"), get("reason"), w.decision, w.reason)
	}
	if get("pin.source").String() != w.pinSource || get("pin.reason").String() != w.pinReason ||
		get("pin.problem").String() != w.pinProblem || get("pin.recoverable").Bool() != (w.pinProblem == "") {
		t.Errorf("pin = %s", get("pin").Raw)
	}
	kept, dropped := bndRefs(rec, "kept"), bndRefs(rec, "dropped")
	for _, k := range w.kept {
		if !bndHas(kept, k) {
			t.Errorf("kept %v lacks %s", kept, k)
		}
	}
	for _, d := range w.dropped {
		if !bndHas(dropped, d) {
			t.Errorf("dropped %v lacks %s", dropped, d)
		}
	}
	out := get("reseed")
	switch w.complete {
	case "":
		if out.Exists() {
			t.Errorf("an APPEND carries a reseed outcome: %s", out.Raw)
		}
		return
	case "no":
		if out.Get("complete").Bool() || out.Get("projection").Exists() {
			t.Errorf("an incomplete reseed offers %s", out.Raw)
		}
		if w.pinProblem != "" {
			if get("pin.digest").Type != gjson.Null || !strings.Contains(out.Get("problems").Raw, `"pin_unrecoverable"`) {
				t.Errorf("an unrecoverable pin was not reported as such: pin %s, problems %s", get("pin").Raw, out.Get("problems").Raw)
			}
		}
		return
	}
	if !out.Get("complete").Bool() {
		t.Fatalf("reseed incomplete: %s", out.Get("problems").Raw)
	}
	p := out.Get("projection")
	q := p.Get("query").String()
	if p.Get("reason").String() != w.continueAs {
		t.Errorf("projection reason %s, want %s", p.Get("reason"), w.continueAs)
	}
	if !strings.Contains(q, "[pin "+get("pin.digest").String()+", event "+get("pin.eventId").String()+"]") {
		t.Errorf("the query does not name pin %s:\n%s", get("pin.digest"), q)
	}
	if !strings.Contains(q, "Next action [event ") {
		t.Errorf("the query names no next action:\n%s", q)
	}
	for _, s := range w.queryHas {
		if !strings.Contains(q, s) {
			t.Errorf("query lacks %q:\n%s", s, q)
		}
	}
	for _, s := range w.queryLacks {
		if strings.Contains(strings.ToLower(q), strings.ToLower(s)) {
			t.Errorf("query still holds %q:\n%s", s, q)
		}
	}
	if n := get("numbers"); w.smaller && n.Get("queryTokens").Int() >= n.Get("retainedTokens").Int() {
		t.Errorf("query %d tokens is not smaller than the retained %d", n.Get("queryTokens").Int(), n.Get("retainedTokens").Int())
	}
}

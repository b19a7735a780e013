package server_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// bndEv builds one event with an explicit seq and a fixed time.
func bndEv(seq int64, typ string, data any) hostapi.Event {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	return hostapi.Event{Type: typ, Seq: seq, Time: json.RawMessage(strconv.FormatInt(1740830400000+seq*1000, 10)), Data: b}
}

func bndCreated(seq int64) hostapi.Event { return bndEv(seq, "session/created", map[string]any{}) }

func bndTurnStart(seq int64, turn int) hostapi.Event {
	return bndEv(seq, "turn/start", map[string]any{"turn": turn})
}

func bndTurnEnd(seq int64, turn int) hostapi.Event {
	return bndEv(seq, "turn/end", map[string]any{"turn": turn, "reason": "completed"})
}

func bndUser(seq int64, text string) hostapi.Event {
	return bndEv(seq, "user/message", map[string]any{"text": text})
}

// bndAnn is an assistant annotation {kind, subject, text}: how an agent
// marks what must survive a reseed (boundary's package doc).
type bndAnn struct{ kind, subject, text string }

func bndAssistant(seq int64, text string, anns ...bndAnn) hostapi.Event {
	data := map[string]any{"text": text}
	var list []map[string]string
	for _, a := range anns {
		list = append(list, map[string]string{"kind": a.kind, "subject": a.subject, "text": a.text})
	}
	if list != nil {
		data["annotations"] = list
	}
	return bndEv(seq, "assistant/message", data)
}

// bndTest is a test run's tool/result: a witness when it passed, the
// current failure otherwise.
func bndTest(seq int64, subject string, passed bool, summary string, outputChars int) hostapi.Event {
	return bndEv(seq, "tool/result", map[string]any{"callId": "call_" + strconv.FormatInt(seq, 10), "isError": !passed,
		"name": "go_test", "kind": "test", "subject": subject, "passed": passed, "summary": summary,
		"output": strings.Repeat("x", outputChars)})
}

func bndTool(seq int64, name, output string) hostapi.Event {
	return bndEv(seq, "tool/result", map[string]any{"callId": "call_" + strconv.FormatInt(seq, 10), "isError": false,
		"name": name, "output": output})
}

func bndUsage(seq, in, window int64) hostapi.Event {
	return bndEv(seq, "usage", map[string]any{"inputTokens": in, "contextWindow": window})
}

// bndSend sends events to the plugin (and the host's log) in order.
func bndSend(t *testing.T, h *host.Host, sid string, evs ...hostapi.Event) {
	t.Helper()
	for _, ev := range evs {
		if _, err := h.SessionEvent(sid, ev, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// bndAwait polls continuity.boundary until the session's latest record is
// the one for the boundary at seq with trigger (decisions run after the
// boundary event, off the read loop). The wait is bounded by ctxT; each
// record seen is checked against remote/continuity/boundary.value.
func bndAwait(t *testing.T, h *host.Host, sid string, seq int64, trigger string) json.RawMessage {
	t.Helper()
	ctx := ctxT(t)
	want := strconv.FormatInt(seq, 10)
	var last json.RawMessage
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		res, err := h.RemoteInvoke(ctx, "continuity", "boundary", map[string]string{"agentId": sid})
		if err != nil {
			t.Fatalf("continuity.boundary: %v (last record %s)", err, last)
		}
		if res.OK {
			if err := uicontract.Validate("remote/continuity/boundary.value", res.Value); err != nil {
				t.Fatalf("boundary record does not validate: %v\n%s", err, res.Value)
			}
			last = res.Value
			if gjson.GetBytes(last, "throughEventId").String() == want && gjson.GetBytes(last, "trigger").String() == trigger {
				return last
			}
		} else if res.Error.Code != "CONTINUITY_BOUNDARY_NOT_DECIDED" {
			t.Fatalf("continuity.boundary failed: %+v", res.Error)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no %s record through event %d for %s; last record %s", trigger, seq, sid, last)
		case <-time.After(delay):
		}
	}
}

// bndRefs renders a record's kept or dropped list as
// "kind:subject:why@event", the boundary package's own notation.
func bndRefs(rec json.RawMessage, list string) []string {
	var out []string
	for _, r := range gjson.GetBytes(rec, list).Array() {
		out = append(out, r.Get("kind").String()+":"+r.Get("subject").String()+":"+r.Get("why").String()+"@"+r.Get("eventId").String())
	}
	return out
}

func bndHas(list []string, want string) bool {
	for _, l := range list {
		if l == want {
			return true
		}
	}
	return false
}

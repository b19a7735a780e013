package server_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// pollNotices reads the continuity notices Remote for agentID, checked
// against its schema, and returns the notices of kind.
func pollNotices(t *testing.T, h *host.Host, agentID, kind string) []gjson.Result {
	t.Helper()
	res, err := h.RemoteInvoke(ctxT(t), "continuity", "notices", map[string]string{"agentId": agentID})
	if err != nil || !res.OK {
		t.Fatalf("notices: %v %+v", err, res.Error)
	}
	if err := uicontract.Validate("remote/continuity/notices.value", res.Value); err != nil {
		t.Fatalf("notices value does not validate: %v\n%s", err, res.Value)
	}
	var out []gjson.Result
	for _, n := range gjson.GetBytes(res.Value, "notices").Array() {
		if n.Get("kind").Str == kind {
			out = append(out, n)
		}
	}
	return out
}

// TestReturnOfferListedByNotices: the return-to-predecessor offer is also
// a live notice of the notices Remote, so a client that polls sees it: the
// same notice the continuity.notice event carried, for as long as the turn
// the person wrote in lasts: its turn/end retires it.
func TestReturnOfferListedByNotices(t *testing.T) {
	reg := newContSessions()
	h := contStart(t, t.TempDir(), reg)
	const a = "ses-poll"
	contSeed(t, h, a)
	var c contContinued
	contOK(t, "continue_session", contCall(t, h, a, "call-cont-1", "continue_session", contArgs(a)), &c)
	if got := pollNotices(t, h, a, "continuationReturn"); len(got) != 0 {
		t.Fatalf("an offer before the person wrote again: %v", got)
	}

	back := func(turn int64, seq int64) {
		contEvent(t, h, a, seq, "turn/start", `{"turn":`+strconv.FormatInt(turn, 10)+`}`)
		contEvent(t, h, a, seq+1, "user/message", `{"text":"One more thing."}`)
		if _, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: a, Turn: int(turn), Step: 1, RequestID: "req-" + strconv.FormatInt(turn, 10),
			Config: host.LLMConfig{Provider: "github-copilot-preview", Model: "gpt-5"}}); err != nil {
			t.Fatal(err)
		}
	}
	contEvent(t, h, a, 9, "turn/end", `{"turn":1,"reason":"completed"}`)
	back(2, 10)
	sent, err := h.WaitEvent(ctxT(t), "continuity.notice", func(n host.Notification) bool {
		return gjson.GetBytes(n.Params, "args.0.kind").Str == "continuationReturn"
	})
	if err != nil {
		t.Fatalf("no return offer event: %v", err)
	}
	listed := pollNotices(t, h, a, "continuationReturn")
	if len(listed) != 1 || !sameJSON(listed[0].Raw, gjson.GetBytes(sent.Params, "args.0").Raw) {
		t.Fatalf("notices lists %v, want the offer sent: %s", listed, gjson.GetBytes(sent.Params, "args.0").Raw)
	}
	if o := listed[0]; o.Get("turn").Int() != 2 || o.Get("continuation.successorId").Str != c.SuccessorID || o.Get("continuation.edgeId").Str != c.EdgeID {
		t.Errorf("listed offer = %s", o.Raw)
	}
	contEvent(t, h, a, 12, "turn/end", `{"turn":2,"reason":"completed"}`)
	if got := pollNotices(t, h, a, "continuationReturn"); len(got) != 0 {
		t.Errorf("the offer outlived its turn: %v", got)
	}

	// The next turn the person writes in is offered again.
	back(3, 13)
	if got := pollNotices(t, h, a, "continuationReturn"); len(got) != 1 || got[0].Get("turn").Int() != 3 {
		t.Fatalf("turn 3's offer: %v", got)
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

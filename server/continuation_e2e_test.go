package server_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// TestContinuationCreatesSuccessor is issue 8's main path through the
// binary: continue_session creates the successor through session/create
// with an idempotency key, persists edge, manifest and handoff (readable
// through the Remotes, also from a new process), emits session.continued
// once, ends the turn, and carries the initiating message byte for byte.
func TestContinuationCreatesSuccessor(t *testing.T) {
	dir, reg := t.TempDir(), newContSessions()
	h := contStart(t, dir, reg)
	const a = "ses-a"
	initSeq := contSeed(t, h, a)

	res := contCall(t, h, a, "call-cont-1", "continue_session", contArgs(a))
	if !res.EndsTurn {
		t.Error("continue_session must end the predecessor's turn")
	}
	var c contContinued
	contOK(t, "continue_session", res, &c)
	if !c.Created || c.SuccessorID == "" || c.EdgeID == "" || c.ManifestID == "" {
		t.Fatalf("result = %+v", c)
	}

	made := reg.sessions()
	if len(made) != 1 {
		t.Fatalf("session/create made %d sessions, want 1", len(made))
	}
	s := made[0]
	if s.SessionID != c.SuccessorID || s.PredecessorID != a || s.Title != "Session continuation proposal" {
		t.Errorf("created %+v for result %+v", s, c)
	}
	if s.IdempotencyKey == "" || reg.callsFor(s.IdempotencyKey) != 1 {
		t.Errorf("idempotency key %q used %d times", s.IdempotencyKey, reg.callsFor(s.IdempotencyKey))
	}
	if s.Header == nil || !s.Header.IsSeeded || s.Header.Origin != a {
		t.Errorf("successor header = %+v, want seeded with origin %s", s.Header, a)
	}

	// The projection: the schema's shape, the seed's order, and the
	// initiating message as the host's exact JSON token.
	if err := uicontract.Validate("continuation/projection", s.Context); err != nil {
		t.Fatalf("session/create context: %v", err)
	}
	var kinds []string
	for _, sec := range gjson.GetBytes(s.Context, "sections").Array() {
		kinds = append(kinds, sec.Get("kind").String())
	}
	if got := strings.Join(kinds, ","); !strings.HasPrefix(got, "control,lineage,state,initiating_message,handoff,source") {
		t.Errorf("section order = %s", got)
	}
	want := gjson.Get(contInitiating, "text").Raw
	init := contSection(t, s.Context, "initiating_message")
	if init.Get("text").Raw != want || init.Get("eventId").String() != "7" || init.Get("sessionId").String() != a {
		t.Errorf("initiating section = %s, want text %s at event %d", init.Raw, want, initSeq)
	}
	if !bytes.Contains(s.Context, []byte(want)) {
		t.Error("the initiating message's exact bytes are not in the context")
	}
	lineage := contSection(t, s.Context, "lineage").Get("text").String()
	for _, part := range []string{`<origin session="ses-a" />`, `edge="` + c.EdgeID + `"`, `<initiating_event id="7" />`, `manifest="` + c.ManifestID + `"`} {
		if !strings.Contains(lineage, part) {
			t.Errorf("lineage block lacks %s:\n%s", part, lineage)
		}
	}

	// session.continued, exactly once, naming the successor.
	n, err := h.WaitEvent(ctxT(t), "session.continued", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ev []contContinuedEvent
	if err := json.Unmarshal(n.Args, &ev); err != nil || len(ev) != 1 {
		t.Fatalf("session.continued args = %s", n.Args)
	}
	if ev[0] != (contContinuedEvent{a, c.SuccessorID, c.EdgeID, c.ManifestID, "topic_change"}) {
		t.Errorf("session.continued = %+v", ev[0])
	}

	contCheckPersisted(t, h, a, c, initSeq)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	// A new process on the same data dir reads the same committed records.
	h2 := contStart(t, dir, reg)
	contCheckPersisted(t, h2, a, c, initSeq)
	if got := len(h.RemoteEvents("session.continued")) + len(h2.RemoteEvents("session.continued")); got != 1 {
		t.Errorf("session.continued sent %d times, want 1", got)
	}
}

type contContinuedEvent struct {
	PredecessorID string `json:"predecessorId"`
	SuccessorID   string `json:"successorId"`
	EdgeID        string `json:"edgeId"`
	ManifestID    string `json:"manifestId"`
	Reason        string `json:"reason"`
}

// contCheckPersisted reads edge, manifest and handoff back through the
// continuity Remotes; each value validates against its schema.
func contCheckPersisted(t *testing.T, h *host.Host, pred string, c contContinued, initSeq int64) {
	t.Helper()
	lin := contRemote(t, h, "lineage", map[string]string{"agentId": c.SuccessorID})
	if gjson.GetBytes(lin, "originId").String() != pred || gjson.GetBytes(lin, "banner.edgeId").String() != c.EdgeID {
		t.Errorf("successor lineage = %s", lin)
	}
	card := contRemote(t, h, "lineage", map[string]string{"agentId": pred})
	if gjson.GetBytes(card, "cards.#").Int() != 1 || gjson.GetBytes(card, "cards.0.successorId").String() != c.SuccessorID {
		t.Errorf("predecessor lineage = %s", card)
	}
	hand := contRemote(t, h, "handoff", map[string]string{"edgeId": c.EdgeID})
	if gjson.GetBytes(hand, "handoff.purpose").String() != "Plan the v2 migration" || gjson.GetBytes(hand, "successorId").String() != c.SuccessorID {
		t.Errorf("handoff = %s", hand)
	}
	m := contRemote(t, h, "manifest", map[string]string{"manifestId": c.ManifestID})
	if gjson.GetBytes(m, "edgeId").String() != c.EdgeID || gjson.GetBytes(m, "initiatingEvent.eventId").Int() != initSeq ||
		gjson.GetBytes(m, "reason").String() != "topic_change" {
		t.Errorf("manifest = %s", m)
	}
	if code := contRemoteErr(t, h, "handoff", map[string]string{"edgeId": "continuation-unknown"}); code != "CONTINUITY_NOT_FOUND" {
		t.Errorf("unknown edge: code %s", code)
	}
	if code := contRemoteErr(t, h, "lineage", map[string]any{"agentId": pred, "extra": 1}); code != "arguments-invalid" {
		t.Errorf("bad args: code %s", code)
	}
}

// TestContinuationReplayAfterRestart replays one continue_session call in a
// new plugin process on the same data dir: the same successor comes back,
// created is false, the host is not asked again, and nothing is emitted.
func TestContinuationReplayAfterRestart(t *testing.T) {
	dir, reg := t.TempDir(), newContSessions()
	h := contStart(t, dir, reg)
	const a = "ses-a"
	contSeed(t, h, a)
	var first contContinued
	contOK(t, "continue_session", contCall(t, h, a, "call-cont-1", "continue_session", contArgs(a)), &first)
	log := h.SessionLog(a)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}

	h2 := contStart(t, dir, reg)
	contReplayLog(t, h2, a, log)
	res := contCall(t, h2, a, "call-cont-1", "continue_session", contArgs(a))
	var again contContinued
	contOK(t, "continue_session", res, &again)
	if !res.EndsTurn {
		t.Error("a replay must end the turn too")
	}
	if again.Created || again.SuccessorID != first.SuccessorID || again.EdgeID != first.EdgeID || again.ManifestID != first.ManifestID {
		t.Errorf("replay = %+v, first = %+v", again, first)
	}
	if n := len(reg.sessions()); n != 1 {
		t.Errorf("host holds %d successors, want 1", n)
	}
	if n := h2.CallCount("session/create"); n != 0 {
		t.Errorf("a committed replay asked the host %d times", n)
	}
	if n := len(h2.RemoteEvents("session.continued")); n != 0 {
		t.Errorf("a replay emitted session.continued %d times", n)
	}

	// The same call id with other arguments is not a replay.
	other := contArgs(a)
	other["title"] = "Something else"
	if code := contErrCode(t, contCall(t, h2, a, "call-cont-1", "continue_session", other)); code != "CONTINUITY_REPLAY_MISMATCH" {
		t.Errorf("changed replay: code %s", code)
	}
}

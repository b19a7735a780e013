package plugin_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// dshBorn is when the replayed live sessions were born: after activation,
// so the creation-time default (on) covers them.
var dshBorn = time.Now().Add(time.Hour).UnixMilli()

// Every recorded DSH stream, in both session formats, goes through the
// real binary exactly as a bridge forwards it (session.event, DSH's
// frames, no header, seq from 0), with agent/request and llm/payload where
// DSH's loop issues them. Every step is admitted, the turn after the
// stream is admitted, tool calls settle (continue_session is not refused
// for unsettled effects), its initiating message is the person's prompt,
// the compaction bracket completes with a filtered summary payload, and
// the plugin's log shows no event that was not applied.
func TestDSHStreamsReplay(t *testing.T) {
	files := dsh.Files()
	if len(files) != 14 {
		t.Fatalf("%d recorded streams, want the 14 of fixtures/dsh/recorded", len(files))
	}
	for _, format := range []dsh.Format{dsh.Format0, dsh.Format4} {
		for _, file := range files {
			t.Run(fmt.Sprintf("format%d/%s", format, strings.TrimSuffix(file, ".jsonl")), func(t *testing.T) {
				st, err := dsh.Load(file, format, dshBorn)
				if err != nil {
					t.Fatal(err)
				}
				dshReplay(t, st)
			})
		}
	}
}

// lockedBuffer collects the plugin's whole stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// dshModelOutput is what a step's model call produces first: agent/request
// comes before it.
func dshModelOutput(typ string) bool {
	switch typ {
	case "assistant/chunk", "assistant/message", "reasoning-chunks", "text-chunks", "tool-call-chunks":
		return true
	}
	return false
}

type dshStep struct {
	sid        string
	turn, step int64
}

func dshReplay(t *testing.T, st dsh.Stream) {
	stderr := &lockedBuffer{}
	h := initialized(t, host.Config{Stderr: stderr}, host.AllCapabilities())
	for sid, hdr := range st.Headers {
		h.SetAgentHeader(sid, hdr, host.StatusRunning)
	}
	body := payloadgen.Generate(payloadgen.Spec{Seed: 13, Size: 64 << 10, Reasoning: 4, ToolOutputBytes: 256}).Body
	const model = "gpt-5.4"
	requested := map[dshStep]bool{}
	lastTurn := map[string]int64{}
	person := map[string]string{} // the eventId of the person's latest prompt
	compactions := map[string]string{}
	for _, fr := range st.Frames {
		ev := fr.Event
		typ := ev.Get("type").Str
		at := dshStep{fr.Session, ev.Get("data.turn").Int(), ev.Get("data.step").Int()}
		if fr.Session != "" && dshModelOutput(typ) && !requested[at] {
			requested[at] = true
			rid := fmt.Sprintf("req_%s_%d_%d", at.sid, at.turn, at.step)
			res, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: at.sid, Turn: int(at.turn), Step: int(at.step),
				RequestID: rid, AccountID: "acct-A", Config: host.LLMConfig{Provider: "github-copilot-preview", Model: model}})
			if err != nil || res.Admission == nil {
				t.Fatalf("%s turn %d step %d not admitted: %v", at.sid, at.turn, at.step, err)
			}
			if _, err := h.Payload(ctxT(t), host.PayloadParams{RequestID: rid, SessionID: at.sid, Turn: int(at.turn), Step: int(at.step),
				Provider: "github-copilot-preview", Model: model, Payload: body}); err != nil {
				t.Fatalf("%s turn %d step %d chat payload: %v", at.sid, at.turn, at.step, err)
			}
		}
		if err := h.SendLine(fr.Line); err != nil {
			t.Fatal(err)
		}
		switch typ {
		case "turn/start":
			lastTurn[fr.Session] = ev.Get("data.turn").Int()
		case "user/message":
			if ev.Get("data.source.kind").Str == "user" {
				person[fr.Session] = ev.Get("seq").Raw
			}
		case "compaction/start":
			cid := ev.Get("data.compactionId").Str
			compactions[fr.Session] = cid
			res, err := h.Payload(ctxT(t), host.PayloadParams{RequestID: "sum-" + cid, SessionID: fr.Session, Turn: int(ev.Get("data.turn").Int()), Step: 1,
				Provider: "github-copilot-preview", Model: model, Purpose: "compaction", CompactionID: cid, Payload: body})
			if err != nil || res.Outcome != "filtered" || res.Omitted.Items != 4 {
				t.Fatalf("summary payload: %s %+v %v", res.Outcome, res.Omitted, err)
			}
		}
	}
	for _, sid := range st.Sessions {
		next := lastTurn[sid] + 1
		rid := fmt.Sprintf("req_%s_next", sid)
		if _, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: sid, Turn: int(next), Step: 1, RequestID: rid,
			AccountID: "acct-A", Config: host.LLMConfig{Provider: "github-copilot-preview", Model: model}}); err != nil {
			t.Fatalf("%s: the turn after the stream (%d) is not admitted: %v", sid, next, err)
		}
		if cid := compactions[sid]; cid != "" {
			v := dshView(t, h, sid)
			if gjson.GetBytes(v, "compaction.id").Str != cid || gjson.GetBytes(v, "compaction.state").Str != "completed" {
				t.Fatalf("%s compaction: %s", sid, v)
			}
		}
		if person[sid] == "" {
			continue // a child whose only prompt came from its parent
		}
		res := contCall(t, h, sid, "call-cont-"+sid, "continue_session", map[string]any{
			"reason": "topic_change", "title": "Carry on",
			"handoff": map[string]any{"purpose": "carry on", "currentRequest": "carry on"},
			"sources": []any{map[string]any{"kind": "session_events", "sessionId": sid, "fromEventId": "0",
				"toEventId": person[sid], "relevance": "the request so far"}}})
		var out contContinued
		contOK(t, "continue_session", res, &out)
		m := contRemote(t, h, "manifest", map[string]any{"manifestId": out.ManifestID})
		if got := gjson.GetBytes(m, "initiatingEvent.eventId").Str; got != person[sid] {
			t.Fatalf("%s: initiating event %s, want the person's prompt %s", sid, got, person[sid])
		}
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		for _, bad := range []string{"session event not applied", "invalid notification", "effect skipped", "header ignored"} {
			if strings.Contains(line, bad) {
				t.Fatalf("the plugin dropped part of an event: %s", line)
			}
		}
	}
}

// dshView reads githubCopilotSessionContinuation.get for sid.
func dshView(t *testing.T, h *host.Host, sid string) []byte {
	t.Helper()
	res, err := h.RemoteInvoke(ctxT(t), "githubCopilotSessionContinuation", "get", map[string]any{"agentId": sid})
	if err != nil || !res.OK {
		t.Fatalf("get: %v %+v", err, res.Error)
	}
	return res.Value
}

// A member a feature needs that does not read is logged with its reason
// and skips only that effect: the event is not dropped, later events
// apply, and a frame whose envelope is wrong is named in the log too.
func TestDSHMalformedMemberSkipsOnlyItsEffect(t *testing.T) {
	stderr := &lockedBuffer{}
	h := initialized(t, host.Config{Stderr: stderr}, host.AllCapabilities())
	const sid = "s-malformed"
	h.SetAgentHeader(sid, dsh.Format4.Header(sid, &dshBorn, false, ""), host.StatusRunning)
	send := func(seq int, typ, data string) {
		t.Helper()
		line := `{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"` + sid + `","event":{"type":"` + typ +
			`","seq":` + fmt.Sprint(seq) + `,"time":0,"data":` + data + `}}}`
		if err := h.SendLine([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	admit := func(turn int) error {
		_, err := h.AgentRequest(ctxT(t), host.AgentRequestParams{SessionID: sid, Turn: turn, Step: 1, RequestID: fmt.Sprintf("r%d", turn),
			Config: host.LLMConfig{Provider: "github-copilot-preview", Model: "gpt-5.4"}})
		return err
	}
	send(0, "turn/start", `{"turn":1}`)
	if err := admit(1); err != nil {
		t.Fatal(err)
	}
	send(1, "turn/end", `{"turn":"one","reason":{"kind":"completed"}}`)
	if rerr := turnsXRPC(t, admit(2)); dataCode(rerr) != "COPILOT_CONTINUATION_TURN_UNSETTLED" {
		t.Fatalf("a turn/end whose turn does not read ended a turn: %v", rerr)
	}
	if err := h.SendLine([]byte(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"` + sid + `","event":{"type":"turn/end","seq":-2}}}`)); err != nil {
		t.Fatal(err)
	}
	send(2, "turn/end", `{"turn":1,"reason":{"kind":"forked"}}`)
	if err := admit(2); err != nil {
		t.Fatalf("the valid turn/end after a malformed one was not applied: %v", err)
	}
	log := stderr.String()
	for _, want := range []string{`"reason":"turn/end: data.turn is not a non-negative integer"`, `"reason":"event.seq is not an integer from 0"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not name %s:\n%s", want, log)
		}
	}
}

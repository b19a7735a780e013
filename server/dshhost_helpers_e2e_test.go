package server_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// Helpers for issue 28's tests (prefix dshH): a session driven exactly as a
// DSH host drives it — the header only through agents/get (format 4), the
// events as session.event without a header, seq from 0, and agent/request
// naming the account, since DSH has no account event.

// dshHSession is one DSH session on the host double.
type dshHSession struct {
	h   *host.Host
	id  string
	seq int64
}

// dshHOpen makes a session known to agents/get. seeded false and born after
// activation means the creation-time default (on) covers it; seeded true
// means it resolves off unless it has its own row.
func dshHOpen(t *testing.T, h *host.Host, sid string, seeded bool) *dshHSession {
	t.Helper()
	born := time.Now().Add(time.Hour).UnixMilli()
	h.SetAgentHeader(sid, dsh.Format4.Header(sid, &born, seeded, ""), host.StatusIdle)
	return &dshHSession{h: h, id: sid}
}

// event forwards one event of type typ with data, as DSH's SDK does.
func (s *dshHSession) event(t *testing.T, typ string, data any) int64 {
	t.Helper()
	ev := host.Ev(typ, data)
	ev.Seq = s.seq
	if err := s.h.Forward(s.id, ev); err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	s.seq++
	return ev.Seq
}

// prompt starts turn with the person's message text and DSH's runtime
// context, and returns the prompt's seq.
func (s *dshHSession) prompt(t *testing.T, turn int, text string) int64 {
	t.Helper()
	s.event(t, "turn/start", dsh.TurnStart(turn))
	seq := s.event(t, "user/message", dsh.Prompt(fmt.Sprintf("msg-%s-%d", s.id, turn), text))
	s.event(t, "user/message", dsh.RuntimeContext(fmt.Sprintf("ctx-%s-%d", s.id, turn), "cwd: /work"))
	s.event(t, "step/start", dsh.Step(turn, 1))
	return seq
}

// answer ends turn with an assistant message and turn/end completed.
func (s *dshHSession) answer(t *testing.T, turn int, text string) {
	t.Helper()
	s.event(t, "assistant/message", dsh.Assistant(turn, 1, "github-copilot-preview", turnsXModel, text, nil, 1200))
	s.event(t, "step/end", dsh.Step(turn, 1))
	s.event(t, "turn/end", dsh.TurnEnd(turn, "completed"))
}

// request is DSH's agent/request for a step of the Copilot route on account.
func (s *dshHSession) request(t *testing.T, turn, step int, rid, account string) (*host.Admission, *host.RPCError) {
	t.Helper()
	return turnsXAdmit(t, s.h, s.id, turn, step, rid, account, turnsXModel)
}

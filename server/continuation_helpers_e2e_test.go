package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// contSessions is the host's session registry as it outlives plugin
// processes: a restart of the plugin is a new host double, but the host it
// stands for still remembers which successor each idempotency key made.
// Every host double of a test serves session/create from it.
type contSessions struct {
	mu    sync.Mutex
	byKey map[string]string
	made  []host.CreatedSession
	calls map[string]int
	// answer, when set, picks the session id a new key is answered with
	// (to make the host hand back an existing session).
	answer func(p hostapi.CreateSession) string
	// after runs once a session is made, before the answer goes out.
	after func(p hostapi.CreateSession)
}

func newContSessions() *contSessions {
	return &contSessions{byKey: map[string]string{}, calls: map[string]int{}}
}

// serve is the session/create handler: the same key always yields the
// same session, as docs/protocol.md §6 requires.
func (c *contSessions) serve(_ context.Context, params json.RawMessage) (any, *host.RPCError) {
	var p hostapi.CreateSession
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &host.RPCError{Code: -32602, Message: err.Error()}
	}
	c.mu.Lock()
	c.calls[p.IdempotencyKey]++
	if id, ok := c.byKey[p.IdempotencyKey]; ok {
		c.mu.Unlock()
		return hostapi.Created{SessionID: id, Created: false}, nil
	}
	id := "succ-" + strconv.Itoa(len(c.made)+1)
	if c.answer != nil {
		id = c.answer(p)
	}
	c.byKey[p.IdempotencyKey] = id
	c.made = append(c.made, host.CreatedSession{SessionID: id, IdempotencyKey: p.IdempotencyKey,
		PredecessorID: p.PredecessorID, Title: p.Title, Header: p.Header, Context: bytes.Clone(p.Context)})
	after := c.after
	c.mu.Unlock()
	if after != nil {
		after(p)
	}
	return hostapi.Created{SessionID: id, Created: true}, nil
}

func (c *contSessions) sessions() []host.CreatedSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]host.CreatedSession(nil), c.made...)
}

func (c *contSessions) callsFor(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[key]
}

// contStart starts the real binary on dataDir, initializes it with every
// capability, and serves session/create from reg.
func contStart(t *testing.T, dataDir string, reg *contSessions) *host.Host {
	t.Helper()
	h := initialized(t, host.Config{DataDir: dataDir}, host.AllCapabilities())
	h.Handle("session/create", reg.serve)
	return h
}

// contEvent sends one event with an explicit seq and time, so that the
// same history can be sent again, identically, to a restarted plugin.
func contEvent(t *testing.T, h *host.Host, sid string, seq int64, typ, data string) hostapi.Event {
	t.Helper()
	ev := hostapi.Event{Type: typ, Seq: seq, Time: json.RawMessage(strconv.FormatInt(1740830400000+seq*1000, 10))}
	if data != "" {
		ev.Data = json.RawMessage(data)
	}
	if _, err := h.SessionEvent(sid, ev, nil); err != nil {
		t.Fatal(err)
	}
	return ev
}

// contReplayLog sends a session's log (as another host double recorded it)
// to h, as a host does when a restarted plugin needs the history again.
func contReplayLog(t *testing.T, h *host.Host, sid string, log []hostapi.Event) {
	t.Helper()
	for _, ev := range log {
		if _, err := h.SessionEvent(sid, ev, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// contInitiating is the user message that causes the continuation. Its
// data is the host's exact bytes: escapes (\u2019, \", \n, \t, \\, a
// surrogate pair) that any re-encoding would change.
const contInitiating = `{"text":"Now let\u2019s plan the \"v2\" migration:\n\t1. keep caf\u00e9 \\ \ud83d\ude00 ✓ as is"}`

// contSeed writes a predecessor conversation into sid: two exchanges, the
// initiating user message, and the assistant's continue_session call.
// It returns the initiating message's seq.
func contSeed(t *testing.T, h *host.Host, sid string) int64 {
	t.Helper()
	contEvent(t, h, sid, 1, "session/created", `{}`)
	contEvent(t, h, sid, 2, "turn/start", `{"turn":0}`)
	contEvent(t, h, sid, 3, "user/message", `{"text":"Rethink compaction for long sessions."}`)
	contEvent(t, h, sid, 4, "assistant/message", `{"text":"Summaries of summaries lose the record; continuation keeps it."}`)
	contEvent(t, h, sid, 5, "turn/end", `{"turn":0,"reason":"completed"}`)
	contEvent(t, h, sid, 6, "turn/start", `{"turn":1}`)
	contEvent(t, h, sid, 7, "user/message", contInitiating)
	contEvent(t, h, sid, 8, "assistant/message", `{"toolCalls":[{"callId":"call-cont-1","name":"continue_session"}]}`)
	return 7
}

// contArgs are continue_session arguments citing sid's first exchange.
func contArgs(sid string) map[string]any {
	return map[string]any{
		"reason": "topic_change",
		"title":  "Session continuation proposal",
		"handoff": map[string]any{
			"purpose":        "Plan the v2 migration",
			"currentRequest": "Plan the v2 migration step by step",
			"decisions":      []string{"continuation instead of rolling summaries"},
			"nextActions":    []string{"list the migration steps"},
		},
		"sources": []any{
			map[string]any{"kind": "session_events", "sessionId": sid, "fromEventId": "3", "toEventId": "4", "relevance": "why compaction is being replaced"},
		},
	}
}

// contCall runs a tool and fails the test on a JSON-RPC error.
func contCall(t *testing.T, h *host.Host, sid, callID, name string, args any) host.ToolResult {
	t.Helper()
	res, err := h.ToolCall(ctxT(t), host.ToolCallParams{SessionID: sid, Turn: 1, CallID: callID, Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %s: %v", name, callID, err)
	}
	return res
}

// contContinued is continue_session's structured result.
type contContinued struct {
	SuccessorID string `json:"successorId"`
	EdgeID      string `json:"edgeId"`
	ManifestID  string `json:"manifestId"`
	Created     bool   `json:"created"`
}

// contOK checks a successful tool result against its structured schema
// and decodes it into out.
func contOK(t *testing.T, name string, res host.ToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s failed: %s", name, res.Structured)
	}
	if err := uicontract.Validate("tool/"+name+".structured", res.Structured); err != nil {
		t.Fatalf("%s structured does not validate: %v\n%s", name, err, res.Structured)
	}
	if err := json.Unmarshal(res.Structured, out); err != nil {
		t.Fatal(err)
	}
}

// contErrCode checks a failed tool result and returns its named code.
func contErrCode(t *testing.T, res host.ToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an error result, got %s", res.Structured)
	}
	if err := uicontract.Validate("continuation/toolError", res.Structured); err != nil {
		t.Fatalf("error result does not validate: %v\n%s", err, res.Structured)
	}
	return gjson.GetBytes(res.Structured, "error.code").String()
}

// contRemote invokes continuity.<method> and returns its value, checked
// against remote/continuity/<method>.value.
func contRemote(t *testing.T, h *host.Host, method string, args any) json.RawMessage {
	t.Helper()
	res, err := h.RemoteInvoke(ctxT(t), "continuity", method, args)
	if err != nil {
		t.Fatalf("continuity.%s: %v", method, err)
	}
	if !res.OK {
		t.Fatalf("continuity.%s failed: %+v", method, res.Error)
	}
	if err := uicontract.Validate("remote/continuity/"+method+".value", res.Value); err != nil {
		t.Fatalf("continuity.%s value does not validate: %v\n%s", method, err, res.Value)
	}
	return res.Value
}

// contRemoteErr invokes continuity.<method> expecting a failed envelope.
func contRemoteErr(t *testing.T, h *host.Host, method string, args any) string {
	t.Helper()
	res, err := h.RemoteInvoke(ctxT(t), "continuity", method, args)
	if err != nil {
		t.Fatalf("continuity.%s: %v", method, err)
	}
	if res.OK || res.Error == nil {
		t.Fatalf("continuity.%s: want a failed envelope, got %s", method, res.Value)
	}
	return res.Error.Code
}

// contSection returns the projection section of kind (the first one).
func contSection(t *testing.T, projection []byte, kind string) gjson.Result {
	t.Helper()
	for _, s := range gjson.GetBytes(projection, "sections").Array() {
		if s.Get("kind").String() == kind {
			return s
		}
	}
	t.Fatalf("projection has no %s section", kind)
	return gjson.Result{}
}

// contSpan is an inclusive event range of one session.
type contSpan struct {
	session  string
	from, to int64
}

func (s contSpan) String() string { return fmt.Sprintf("%s[%d–%d]", s.session, s.from, s.to) }

// contItemSpan reads a manifest item's range.
func contItemSpan(it gjson.Result) contSpan {
	if id := it.Get("eventId"); id.Exists() {
		return contSpan{it.Get("sessionId").String(), id.Int(), id.Int()}
	}
	return contSpan{it.Get("sessionId").String(), it.Get("fromEventId").Int(), it.Get("toEventId").Int()}
}

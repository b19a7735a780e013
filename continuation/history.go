package continuation

import (
	"context"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// Host event types this package reads. PROTOCOL.md §4 names the message,
// turn and tool/result types; run/start, run/end, tool/call and plan/update
// are the host's delegated-run, tool-call and plan events, which hosts that
// lack them simply never send (then nothing is pending and there is no plan).
const (
	evUserMessage      = "user/message"
	evAssistantMessage = "assistant/message"
	evTurnStart        = "turn/start"
	evToolCall         = "tool/call"
	evToolResult       = "tool/result"
	evRunStart         = "run/start"
	evRunEnd           = "run/end"
	evPlanUpdate       = "plan/update"
)

// pendingEffect is an effect the predecessor started and has not settled:
// a delegated run (run/start {runId, callId?} without run/end {runId}) or a
// tool call (tool/call {callId}, or an entry of assistant/message
// data.toolCalls[] with callId or id) without tool/result {callId}.
// continue_session calls are not effects: each is idempotent by its call
// id and either committed its edge or did nothing, so none is orphaned.
type pendingEffect struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"` // "run" or "tool_call"
	CallID string `json:"callId,omitempty"`
	Seq    int64  `json:"-"`
}

// history is what continuation needs to know about a predecessor, gathered
// in one streaming pass over its events.
type history struct {
	initiating     *hostapi.Event
	initiatingTurn *int64
	before         []hostapi.Event // user/assistant messages before the initiating one, oldest first
	pending        map[string]pendingEffect
	pendingOrder   []string
	plan           *hostapi.Event
	lastSeq        int64
}

// isCheckpoint reports whether a user/message is a compaction checkpoint:
// generated prose that replaced history, never the user's words. DSH 0.1.x
// marks it {kind:"plugin", plugin:"compact"}, later DSH
// {kind:"compact-checkpoint"}.
func isCheckpoint(data []byte) bool {
	src := gjson.GetBytes(data, "source")
	kind := src.Get("kind").Str
	return kind == "compact-checkpoint" || kind == "plugin" && src.Get("plugin").Str == "compact"
}

// isPersonsMessage reports whether a user/message is the person's own
// words: DSH marks them source.kind "user" and everything it injects
// (the runtime-context snapshot, AGENTS.md, skill catalog, reminders,
// subagent reports, the checkpoint) with another kind. A message without
// a source is a host that does not mark injected context.
func isPersonsMessage(data []byte) bool {
	kind := gjson.GetBytes(data, "source.kind")
	return !kind.Exists() || kind.Str == "user"
}

// isContinueSession reports whether a tool name is continue_session, bare
// or as DSH's MCP client names it (mcp__<server>__continue_session).
func isContinueSession(name string) bool {
	return name == ToolContinueSession || strings.HasPrefix(name, "mcp__") && strings.HasSuffix(name, "__"+ToolContinueSession)
}

// resultCallID returns the call a tool/result settles: DSH's
// message.source.callId (both formats), format 4's message.toolCallId, a
// tool-result block's toolCallId, or a host's own data.callId.
func resultCallID(data []byte) string {
	for _, path := range []string{"message.source.callId", "message.toolCallId", "message.content.0.toolCallId", "callId"} {
		if v := gjson.GetBytes(data, path); v.Type == gjson.String && v.Str != "" {
			return v.Str
		}
	}
	return ""
}

// messageText returns the raw JSON string token of a message's text: data.text,
// or data.content when that is a string. ok is false for other shapes.
func messageText(data []byte) (raw string, ok bool) {
	for _, k := range []string{"text", "content"} {
		if r := gjson.GetBytes(data, k); r.Type == gjson.String {
			return r.Raw, true
		}
	}
	return "", false
}

// scanHistory reads the whole predecessor once, from seq 0. The initiating
// message is the last user/message that is the person's own (not a
// checkpoint, not injected context), or — when fixedSeq ≥ 0 (a correction)
// — exactly the event with that seq. window bounds how many
// earlier messages are kept for recent exchanges and excerpts.
func scanHistory(ctx context.Context, s hostapi.Sessions, sessionID string, fixedSeq int64, window int) (*history, error) {
	h := &history{pending: map[string]pendingEffect{}}
	var ring []hostapi.Event
	var turn *int64
	settle := func(id string) { delete(h.pending, id) }
	open := func(p pendingEffect) {
		if p.ID == "" {
			return
		}
		if _, dup := h.pending[p.ID]; !dup {
			h.pendingOrder = append(h.pendingOrder, p.ID)
		}
		h.pending[p.ID] = p
	}
	complete, err := readEach(ctx, s, sessionID, 0, maxSafeSeq, func(ev hostapi.Event) error {
		h.lastSeq = ev.Seq
		switch ev.Type {
		case evTurnStart:
			if t := gjson.GetBytes(ev.Data, "turn"); t.Exists() {
				v := t.Int()
				turn = &v
			}
		case evUserMessage, evAssistantMessage:
			person := ev.Type == evAssistantMessage || !isCheckpoint(ev.Data) && isPersonsMessage(ev.Data)
			if ev.Type == evUserMessage && person && (fixedSeq < 0 || ev.Seq == fixedSeq) && (h.initiating == nil || fixedSeq < 0) {
				e := ev
				h.initiating, h.initiatingTurn = &e, turn
				h.before = append([]hostapi.Event(nil), ring...)
			}
			if ev.Type == evAssistantMessage {
				openCall := func(_, c gjson.Result) bool {
					id := c.Get("callId").String()
					if id == "" {
						id = c.Get("id").String()
					}
					if !isContinueSession(c.Get("name").String()) {
						open(pendingEffect{ID: id, Kind: "tool_call", CallID: id, Seq: ev.Seq})
					}
					return true
				}
				gjson.GetBytes(ev.Data, "toolCalls").ForEach(openCall)
				gjson.GetBytes(ev.Data, `message.content.#(type=="tool-call")#`).ForEach(openCall)
			}
			if person && (fixedSeq < 0 || ev.Seq < fixedSeq) {
				ring = append(ring, ev)
				if len(ring) > window {
					ring = ring[1:]
				}
			}
		case evToolCall:
			if !isContinueSession(gjson.GetBytes(ev.Data, "name").String()) {
				id := gjson.GetBytes(ev.Data, "callId").String()
				open(pendingEffect{ID: id, Kind: "tool_call", CallID: id, Seq: ev.Seq})
			}
		case evToolResult:
			settle(resultCallID(ev.Data))
		case evRunStart:
			open(pendingEffect{ID: gjson.GetBytes(ev.Data, "runId").String(), Kind: "run",
				CallID: gjson.GetBytes(ev.Data, "callId").String(), Seq: ev.Seq})
		case evRunEnd:
			settle(gjson.GetBytes(ev.Data, "runId").String())
		case evPlanUpdate:
			e := ev
			h.plan = &e
		}
		return nil
	})
	if err != nil {
		return nil, unavailable(sessionID, err)
	}
	if !complete {
		// A history the host stopped giving could hide the latest user
		// message or an unsettled run: never continue from part of it.
		return nil, diag.Newf(CodeSourceUnavailable, "the host gave only part of session %s (through event %d)", sessionID, h.lastSeq).
			With("sessionId", sessionID)
	}
	return h, nil
}

// pendingList returns the unsettled effects in the order they started.
func (h *history) pendingList() []pendingEffect {
	var out []pendingEffect
	seen := map[string]bool{}
	for _, id := range h.pendingOrder {
		if p, ok := h.pending[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, p)
		}
	}
	return out
}

// planRevision is the carried plan's revision: data.revision when the host
// gives one, otherwise the plan event's seq, which identifies it exactly.
func planRevision(ev *hostapi.Event) string {
	if r := gjson.GetBytes(ev.Data, "revision"); r.Exists() && r.Type != gjson.Null {
		return r.String()
	}
	return eventID(ev.Seq)
}

package continuation

import (
	"context"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/dshevent"
	"github.com/continuity-dev/continuity/hostapi"
)

// Host event types this package reads. docs/protocol.md §4 names the message,
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
	evRequestContext   = "request/context"
	evSessionTitle     = "session/title"
)

// pendingEffect is an effect the predecessor started and has not settled:
// a delegated run (run/start {runId, callId?} without run/end {runId}) or a
// tool call (tool/call {callId}, a tool-call block of DSH's
// assistant/message, or a host's data.toolCalls[] entry) without the
// tool/result that names it (dshevent.ResultCallID: DSH's
// message.source.callId in both formats, or a host's data.callId).
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
	seqs           []int64 // every event's seq, in order: what the manifest must account for
	model          *Model  // what the session last used (assistant/message source, request/context)
	title          string  // the latest session/title
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
		h.seqs = append(h.seqs, ev.Seq)
		h.noteModelAndTitle(ev)
		switch ev.Type {
		case evTurnStart:
			if t := gjson.GetBytes(ev.Data, "turn"); t.Exists() {
				v := t.Int()
				turn = &v
			}
		case evUserMessage, evAssistantMessage:
			person := ev.Type == evAssistantMessage || !dshevent.IsCheckpoint(ev.Data) && dshevent.IsPersonsPrompt(ev.Data)
			if ev.Type == evUserMessage && person && (fixedSeq < 0 || ev.Seq == fixedSeq) && (h.initiating == nil || fixedSeq < 0) {
				e := ev
				h.initiating, h.initiatingTurn = &e, turn
				h.before = append([]hostapi.Event(nil), ring...)
			}
			if ev.Type == evAssistantMessage {
				for _, c := range dshevent.AssistantCalls(ev.Data) {
					if dshevent.BareToolName(c.Name) != ToolContinueSession {
						open(pendingEffect{ID: c.ID, Kind: "tool_call", CallID: c.ID, Seq: ev.Seq})
					}
				}
			}
			if person && (fixedSeq < 0 || ev.Seq < fixedSeq) {
				ring = append(ring, ev)
				if len(ring) > window {
					ring = ring[1:]
				}
			}
		case evToolCall:
			if dshevent.BareToolName(gjson.GetBytes(ev.Data, "name").String()) != ToolContinueSession {
				id := gjson.GetBytes(ev.Data, "callId").String()
				open(pendingEffect{ID: id, Kind: "tool_call", CallID: id, Seq: ev.Seq})
			}
		case evToolResult:
			settle(dshevent.ResultCallID(ev.Data))
		case evRunStart:
			open(pendingEffect{ID: gjson.GetBytes(ev.Data, "runId").String(), Kind: "run",
				CallID: gjson.GetBytes(ev.Data, "callId").String(), Seq: ev.Seq})
		case evRunEnd:
			settle(gjson.GetBytes(ev.Data, "runId").String())
		}
		if isPlanEvent(ev.Type) {
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
		return nil, diag.Newf(diag.SourceUnavailable, "the host gave only part of session %s (through event %d)", sessionID, h.lastSeq).
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

// noteModelAndTitle keeps the model the session last used — DSH's
// assistant/message data.message.source {provider, model}, or the route of
// request/context — and the latest session/title.
func (h *history) noteModelAndTitle(ev hostapi.Event) {
	var src gjson.Result
	switch ev.Type {
	case evAssistantMessage:
		src = gjson.GetBytes(ev.Data, "message.source")
	case evRequestContext:
		src = gjson.ParseBytes(ev.Data)
	case evSessionTitle:
		if t := gjson.GetBytes(ev.Data, "title"); t.Type == gjson.String {
			h.title = t.String()
		}
		return
	default:
		return
	}
	if m := src.Get("model"); m.Type == gjson.String && m.String() != "" {
		h.model = &Model{Provider: src.Get("provider").String(), Model: m.String()}
	}
}

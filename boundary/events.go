package boundary

import (
	"strings"
	"unicode/utf8"

	"github.com/continuity-dev/continuity/dshevent"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/tidwall/gjson"
)

// Event types the classifier reads (docs/protocol.md §4) plus the usage event
// this package defines: {inputTokens, contextWindow}, sent by the host (or
// the plugin's own payload path) after each model response so that context
// pressure is a boundary like any other. Its contract for hosts is
// ui-contract's sessionevent/usage.data (documentation: docs/protocol.md §4
// accepts types it does not name, so other shapes arrive and are counted
// as unreadable).
const (
	EventSessionCreated   = "session/created"
	EventUserMessage      = "user/message"
	EventAssistantMessage = "assistant/message"
	EventToolResult       = "tool/result"
	EventToolCall         = "tool/call"
	EventTurnStart        = "turn/start"
	EventUsage            = "usage"
	EventRequestContext   = "request/context"
)

// ReportsUsage reports whether an event of type typ can put the session
// under context pressure: the usage event, DSH's assistant/message (its
// usage) and request/context (its context window). The lead asks
// UnderPressure after observing one.
func ReportsUsage(typ string) bool {
	return typ == EventUsage || typ == EventAssistantMessage || typ == EventRequestContext
}

// Bounds on the text an annotation, a tool summary or an error line keeps.
// Tokens are always measured on the full content. A person's prompt is kept
// whole (it may become the pin or the current request, quoted exactly), so
// a session's view grows with its prompts until a compaction checkpoint
// replaces them or agent/disposed forgets it.
const (
	maxAnnotationText = 16384
	maxSummaryText    = 1024
	maxErrorLine      = 200
)

// Usage is what the context held at the session's latest usage reading:
// a usage event's own {inputTokens, contextWindow}, or DSH's
// assistant/message usage read against the latest request/context window,
// where InputTokens is everything the model read (DSH's counts are
// disjoint: uncached inputTokens + cacheReadTokens + cacheWriteTokens).
type Usage struct {
	Seq           int64
	InputTokens   int64
	ContextWindow int64
}

// parsed is what one event contributes.
type parsed struct {
	items      []Item
	userText   *string // a non-checkpoint user message's exact text
	checkpoint bool
	usage      *Usage
	read       *int64 // DSH's assistant/message usage: the tokens the model read
	window     int64  // DSH's request/context window
	created    bool
	unreadable bool
	call       *callRef // a tool/call: what a later tool/result answers
	resultOf   string   // a DSH tool/result: the call id it settles
	turn       *int64   // a turn/start
	ended      bool     // a turn/end
	completed  bool     // a turn/end whose reason is "completed"
	answer     *string  // an assistant/message's text when it calls no tool
	person     bool     // a user/message is the person's own prompt
}

// callRef is one tool call as its result's item names it: the tool and its
// arguments, so that a result is superseded only by a result of the same
// call again.
type callRef struct{ id, subject, target string }

// parseEvent applies the classification rules of the package doc to one
// event. It never fails: data it cannot read is reported as unreadable.
func parseEvent(ev hostapi.Event) parsed {
	var p parsed
	if ev.Type == EventSessionCreated {
		p.created = true
		return p
	}
	switch ev.Type {
	case EventUserMessage, EventAssistantMessage, EventToolResult, EventUsage:
	case EventRequestContext:
		// DSH leaves the window out when the route does not know it.
		if w, ok := dshevent.ContextWindow(ev.Data); ok {
			p.window = w
		} else if gjson.GetBytes(ev.Data, "contextWindow").Exists() {
			p.unreadable = true
		}
		return p
	case EventToolCall:
		if c, ok := dshevent.ToolCall(ev.Data); ok {
			args, _ := dshevent.Arguments(ev.Data)
			bare := dshevent.BareToolName(c.Name)
			p.call = &callRef{id: c.ID, subject: callSubject(bare, args), target: callTarget(bare, args)}
		}
		return p
	case EventTurnStart:
		if t, present, ok := dshevent.Turn(ev.Data); present && ok {
			p.turn = &t
		}
		return p
	case EventTurnEnd:
		p.ended, p.completed = true, dshevent.TurnEndKind(ev.Data) == "completed"
		return p
	case EventTodoWrite:
		if len(ev.Data) == 0 || ev.Data[0] != '{' {
			p.unreadable = true
		} else {
			parseTodo(ev.Seq, ev.Data, &p)
		}
		for i := range p.items {
			p.items[i].classify()
		}
		return p
	default:
		return p
	}
	// The wire validated the frame and the envelope reader cut Data at
	// its value's end: only its kind is checked here, and each reader
	// takes only the members it needs, so a 17 MiB tool/result is skipped
	// over, never copied or decoded, on the read loop.
	if len(ev.Data) == 0 || ev.Data[0] != '{' {
		p.unreadable = true
		return p
	}
	switch ev.Type {
	case EventUserMessage:
		parseUser(ev.Seq, ev.Data, &p)
	case EventAssistantMessage:
		parseAssistant(ev.Seq, ev.Data, &p)
	case EventToolResult:
		if !parseHostToolResult(ev.Seq, ev.Data, ev.Long, &p) {
			parseToolResult(ev.Seq, ev.Data, &p)
		}
	case EventUsage:
		in, win := gjson.GetBytes(ev.Data, "inputTokens"), gjson.GetBytes(ev.Data, "contextWindow")
		if in.Type != gjson.Number || win.Type != gjson.Number || in.Int() < 0 || win.Int() <= 0 {
			p.unreadable = true
			return p
		}
		p.usage = &Usage{Seq: ev.Seq, InputTokens: in.Int(), ContextWindow: win.Int()}
	}
	for i := range p.items {
		p.items[i].classify()
	}
	return p
}

// parseUser reads a user/message. Only the person's own prompt
// (source.kind "user", or no source) is a request; what the host injects
// (runtime context, AGENTS.md, skills, reminders, subagent reports) costs
// tokens but answers no query; a compaction checkpoint resets the view.
func parseUser(seq int64, data []byte, p *parsed) {
	text := dshevent.Text(data)
	if dshevent.IsCheckpoint(data) {
		p.checkpoint = true
		p.items = append(p.items, Item{Seq: seq, Kind: KindCheckpoint,
			Subject: dshevent.CheckpointOf(data), Tokens: EstimateTokens(text)})
		return
	}
	if !dshevent.IsPersonsPrompt(data) {
		p.items = append(p.items, Item{Seq: seq, Kind: KindInjected,
			Subject: bounded(gjson.GetBytes(data, "source.kind").String(), 256), Tokens: EstimateTokens(text)})
		return
	}
	p.userText, p.person = &text, true
	p.items = append(p.items, Item{Seq: seq, Kind: KindRequest, Text: text, Tokens: EstimateTokens(text)})
}

func parseAssistant(seq int64, data []byte, p *parsed) {
	if u, ok := dshevent.AssistantUsage(data); ok {
		read := u.ContextTokens()
		p.read = &read
	}
	if text := dshevent.Text(data); strings.TrimSpace(text) != "" {
		p.items = append(p.items, Item{Seq: seq, Kind: KindNarration, Tokens: EstimateTokens(text)})
		if len(dshevent.AssistantCalls(data)) == 0 {
			answer := bounded(strings.TrimSpace(text), maxAnnotationText)
			p.answer = &answer
		}
	}
	gjson.GetBytes(data, "annotations").ForEach(func(_, a gjson.Result) bool {
		text := a.Get("text").String()
		kind, ok := annotationKinds[a.Get("kind").String()]
		if !ok || strings.TrimSpace(text) == "" {
			kind = KindNarration
		}
		it := Item{Seq: seq, Index: len(p.items), Kind: kind, Subject: bounded(a.Get("subject").String(), 256),
			Tokens: EstimateTokens(text)}
		if kind != KindNarration {
			it.Text = bounded(text, maxAnnotationText)
		}
		p.items = append(p.items, it)
		return true
	})
}

// parseToolResult reads a host's own tool/result {callId, name, isError,
// output, kind?, subject?, passed?, summary?}. The members are located in
// one pass and only the small ones are read: the output, which can be tens
// of MiB, counts only by its size and, for an error without a summary, its
// first line.
func parseToolResult(seq int64, data []byte, p *parsed) {
	d, ok := dshevent.ReadObject(data)
	if !ok {
		p.unreadable = true
		return
	}
	isError := d.True("isError")
	name, _ := d.Str("name")
	out := d.Raw("output")
	size := len(out)
	if len(out) >= 2 && out[0] == '"' {
		size -= 2
	}
	it := Item{Seq: seq, Kind: KindResult, Subject: bounded(name, 256), Tokens: tokensForChars(size)}
	it.Text = dshevent.Excerpt(d.Raw("summary"), maxSummaryText)
	it.Tokens += EstimateTokens(it.Text)
	kind, _ := d.Str("kind")
	subject, isSubject := d.Str("subject")
	switch {
	case (kind == "test" || kind == "build") && isSubject:
		it.Kind, it.Subject = Kind(kind), bounded(subject, 256)
		passed := d.True("passed") && !isError
		it.Passed = &passed
	case (kind == "effect" || kind == "checkpoint") && isSubject && !isError:
		it.Kind, it.Subject = Kind(kind), bounded(subject, 256)
	case isError:
		it.Kind = KindError
		if it.Text == "" {
			it.Text = dshevent.Excerpt(out, maxErrorLine)
		}
	}
	p.items = append(p.items, it)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// bounded cuts s to at most n bytes on a rune boundary, marking the cut.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

package boundary

import (
	"encoding/json"
	"testing"

	"github.com/continuity-dev/continuity/hostapi"
)

// TestClassificationRules walks the rules table of the package doc, one row
// per rule, so that the documented mapping and the code cannot drift.
func TestClassificationRules(t *testing.T) {
	raw := func(typ, data string) hostapi.Event {
		return hostapi.Event{Type: typ, Seq: 7, Data: json.RawMessage(data)}
	}
	rows := []struct {
		name string
		ev   hostapi.Event
		want []string // "kind/subject/class"
	}{
		{"checkpoint", raw(EventUserMessage, `{"text":"summary","source":{"kind":"compact-checkpoint","compactionId":"c9"}}`), []string{"checkpoint/c9/stable"}},
		{"user message", raw(EventUserMessage, `{"text":"do it"}`), []string{"request//swappable"}},
		{"user content parts", raw(EventUserMessage, `{"content":[{"type":"text","text":"do it"}]}`), []string{"request//swappable"}},
		{"narration", raw(EventAssistantMessage, `{"text":"thinking"}`), []string{"narration//swappable"}},
		{"annotations", raw(EventAssistantMessage, `{"text":"","annotations":[
			{"kind":"constraint","subject":"api","text":"keep it"},
			{"kind":"decision","subject":"db","text":"use sqlite"},
			{"kind":"effect","subject":"pr:1","text":"opened"},
			{"kind":"next_action","subject":"x","text":"run"},
			{"kind":"plan","text":"1. a 2. b"},
			{"kind":"hypothesis","subject":"x","text":"maybe"},
			{"kind":"failed_approach","text":"tried y"},
			{"kind":"mood","text":"happy"},
			{"kind":"decision","subject":"db","text":"  "}]}`),
			[]string{"constraint/api/stable", "decision/db/stable", "effect/pr:1/stable", "next_action/x/stable",
				"plan//swappable", "hypothesis/x/swappable", "failed_approach//swappable", "narration//swappable", "narration/db/swappable"}},
		{"passing test", raw(EventToolResult, `{"callId":"c","isError":false,"kind":"test","subject":"pkg/a","passed":true}`), []string{"test/pkg/a/stable"}},
		{"failing test", raw(EventToolResult, `{"callId":"c","isError":true,"kind":"test","subject":"pkg/a","passed":false}`), []string{"test/pkg/a/swappable"}},
		{"passed but isError", raw(EventToolResult, `{"callId":"c","isError":true,"kind":"build","subject":"./...","passed":true}`), []string{"build/./.../swappable"}},
		{"effect", raw(EventToolResult, `{"callId":"c","isError":false,"kind":"effect","subject":"file:a.go"}`), []string{"effect/file:a.go/stable"}},
		{"failed effect", raw(EventToolResult, `{"callId":"c","isError":true,"name":"write","kind":"effect","subject":"file:a.go"}`), []string{"error/write/swappable"}},
		{"tool error", raw(EventToolResult, `{"callId":"c","isError":true,"name":"bash","output":"boom\nmore"}`), []string{"error/bash/swappable"}},
		{"tool result", raw(EventToolResult, `{"callId":"c","isError":false,"name":"read","output":{"lines":3}}`), []string{"result/read/swappable"}},
		{"turn end", raw("turn/end", `{"turn":1,"reason":"completed"}`), nil},
		{"usage", raw(EventUsage, `{"inputTokens":10,"contextWindow":100}`), nil},
	}
	for _, r := range rows {
		p := parseEvent(r.ev)
		var got []string
		for _, it := range p.items {
			got = append(got, string(it.Kind)+"/"+it.Subject+"/"+string(it.Class))
		}
		if len(got) != len(r.want) {
			t.Errorf("%s: items %v, want %v", r.name, got, r.want)
			continue
		}
		for i := range got {
			if got[i] != r.want[i] {
				t.Errorf("%s: item %d is %s, want %s", r.name, i, got[i], r.want[i])
			}
		}
	}
}

func TestEventDetails(t *testing.T) {
	p := parseEvent(hostapi.Event{Type: EventToolResult, Seq: 3, Data: json.RawMessage(`{"callId":"c","isError":true,"name":"bash","output":"boom: exit 1\nstack"}`)})
	if p.items[0].Text != "boom: exit 1" || p.items[0].Tokens == 0 {
		t.Errorf("a tool error keeps its first line and its size: %+v", p.items[0])
	}
	p = parseEvent(hostapi.Event{Type: EventUsage, Seq: 4, Data: json.RawMessage(`{"inputTokens":90,"contextWindow":100}`)})
	if p.usage == nil || p.usage.InputTokens != 90 || p.usage.ContextWindow != 100 {
		t.Errorf("usage not read: %+v", p.usage)
	}
	for _, bad := range []hostapi.Event{
		{Type: EventUserMessage, Seq: 5, Data: json.RawMessage(`not json`)},
		{Type: EventAssistantMessage, Seq: 5, Data: json.RawMessage(`[1]`)},
		{Type: EventUsage, Seq: 5, Data: json.RawMessage(`{"inputTokens":"many","contextWindow":100}`)},
		{Type: EventUsage, Seq: 5, Data: json.RawMessage(`{"inputTokens":1,"contextWindow":0}`)},
	} {
		if p := parseEvent(bad); !p.unreadable || len(p.items) != 0 {
			t.Errorf("%s %s: want unreadable and no items", bad.Type, bad.Data)
		}
	}
}

func TestSupersession(t *testing.T) {
	pass, fail := true, false
	items := []Item{
		{Seq: 1, Kind: KindTest, Subject: "a", Passed: &pass},
		{Seq: 2, Kind: KindTest, Subject: "b", Passed: &fail},
		{Seq: 3, Kind: KindTest, Subject: "a", Passed: &fail},
		{Seq: 4, Kind: KindDecision, Subject: "db", Text: "postgres"},
		{Seq: 5, Kind: KindDecision, Subject: "db", Text: "sqlite"},
		{Seq: 6, Kind: KindDecision, Text: "no subject"},
		{Seq: 7, Kind: KindDecision, Text: "no subject either"},
		{Seq: 8, Kind: KindError, Subject: "bash"},
		{Seq: 9, Kind: KindResult, Subject: "bash"},
		{Seq: 10, Kind: KindNextAction, Text: "x"},
		{Seq: 10, Index: 1, Kind: KindNextAction, Text: "y"},
		{Seq: 11, Kind: KindFailedApproach, Text: "z"},
	}
	sup := supersede(mergeCandidates(items, nil))
	want := map[key]int64{{1, 0}: 3, {4, 0}: 5, {8, 0}: 9, {10, 0}: 10}
	if len(sup) != len(want) {
		t.Errorf("superseded %v, want %v", sup, want)
	}
	for k, by := range want {
		if sup[k] != by {
			t.Errorf("item %v superseded by %d, want %d", k, sup[k], by)
		}
	}
}

package dshevent

import "testing"

func TestReadersOnEdgeShapes(t *testing.T) {
	for _, c := range []struct {
		name string
		got  any
		want any
	}{
		{"mcp name", BareToolName("mcp__continuity__continue_session"), "continue_session"},
		{"bare name", BareToolName("continue_session"), "continue_session"},
		{"mcp prefix without a tool", BareToolName("mcp__server__"), "mcp__server__"},
		{"format-4 error flag", ResultFailed([]byte(`{"message":{"role":"tool","isError":true}}`)), true},
		{"data.error", ResultFailed([]byte(`{"message":{"role":"tool"},"error":{"name":"Timeout","code":"TIMEOUT"}}`)), true},
		{"null error", ResultFailed([]byte(`{"message":{"role":"tool"},"error":null}`)), false},
		{"host's own callId", ResultCallID([]byte(`{"callId":"c1","isError":false}`)), "c1"},
		{"string reason", TurnEndKind([]byte(`{"turn":1,"reason":"completed"}`)), "completed"},
		{"forked", TurnEndKind([]byte(`{"turn":1,"reason":{"kind":"forked"}}`)), "forked"},
		{"a source-less message is the person's", IsPersonsPrompt([]byte(`{"text":"hi"}`)), true},
		{"AGENTS.md is not", IsPersonsPrompt([]byte(`{"source":{"kind":"agent-instructions"}}`)), false},
		{"host text", Text([]byte(`{"text":"hi"}`)), "hi"},
		{"joined blocks", Text([]byte(`{"content":[{"type":"text","text":"a"},{"type":"reasoning","text":"x"},{"type":"text","text":"b"}]}`)), "a\nb"},
		{"assistant text", Text([]byte(`{"message":{"content":[{"type":"text","text":"ok"}]}}`)), "ok"},
		{"plugin type", IsPluginType("plugin:goal"), true},
		{"not a plugin type", IsPluginType("plugin:"), false},
		{"append is no range", func() bool { _, ok := ReplaceRange([]byte(`"append"`)); return ok }(), false},
		{"reversed range", func() bool { _, ok := ReplaceRange([]byte(`{"op":"replace","start":5,"end":4}`)); return ok }(), false},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if _, present, ok := Turn([]byte(`{"turn":null}`)); present || !ok {
		t.Error("turn null is a manual compaction")
	}
	if _, _, ok := Turn([]byte(`{"turn":"1"}`)); ok {
		t.Error("a string turn read")
	}
	if raw, ok := Arguments([]byte(`{"arguments":"{\"a\":1}"}`)); !ok || raw != `{"a":1}` {
		t.Errorf("arguments %q %v", raw, ok)
	}
	if _, ok := Arguments([]byte(`{"arguments":"{not json"}`)); ok {
		t.Error("arguments that are not JSON read")
	}
}

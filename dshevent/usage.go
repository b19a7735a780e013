package dshevent

import "github.com/tidwall/gjson"

// Usage is an assistant/message's token counts. DSH's counts are
// disjoint: InputTokens is only the uncached part of the input.
type Usage struct {
	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens, ReasoningTokens int64
}

// ContextTokens is what the model read: uncached plus cached input.
func (u Usage) ContextTokens() int64 { return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens }

// AssistantUsage reads assistant/message data.usage; ok is false when it
// is absent or its inputTokens is not a non-negative integer.
func AssistantUsage(data []byte) (Usage, bool) {
	u := gjson.GetBytes(data, "usage")
	in := u.Get("inputTokens")
	if !u.IsObject() || in.Type != gjson.Number || in.Int() < 0 {
		return Usage{}, false
	}
	return Usage{InputTokens: in.Int(), OutputTokens: u.Get("outputTokens").Int(),
		CacheReadTokens: u.Get("cacheReadTokens").Int(), CacheWriteTokens: u.Get("cacheWriteTokens").Int(),
		ReasoningTokens: u.Get("reasoningTokens").Int()}, true
}

// ContextWindow reads request/context data.contextWindow (DSH sends it
// when the route changes); ok is false when absent or not positive.
func ContextWindow(data []byte) (int64, bool) {
	w := gjson.GetBytes(data, "contextWindow")
	if w.Type != gjson.Number || w.Int() <= 0 {
		return 0, false
	}
	return w.Int(), true
}

// IsPluginType reports whether an event type is an older log's unknown
// ignorable producer, plugin:<name>: accepted, never read.
func IsPluginType(typ string) bool {
	return len(typ) > len("plugin:") && typ[:len("plugin:")] == "plugin:"
}

package dshevent

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Call is one tool call an assistant/message or tool/call names.
type Call struct {
	ID   string
	Name string // as the host names it: possibly mcp__<server>__<tool>
}

// AssistantCalls returns the tool calls of an assistant/message: DSH's
// tool-call content blocks {type:"tool-call", id, name, arguments}, then a
// host's own data.toolCalls [{callId|id, name}].
func AssistantCalls(data []byte) []Call {
	var out []Call
	add := func(_, c gjson.Result) bool {
		id := c.Get("callId").Str
		if id == "" {
			id = c.Get("id").Str
		}
		if id != "" {
			out = append(out, Call{ID: id, Name: c.Get("name").Str})
		}
		return true
	}
	gjson.GetBytes(data, `message.content.#(type=="tool-call")#`).ForEach(add)
	gjson.GetBytes(data, "toolCalls").ForEach(add)
	return out
}

// ToolCall reads a tool/call {callId, name, arguments: <JSON text>}.
func ToolCall(data []byte) (Call, bool) {
	id, name := gjson.GetBytes(data, "callId"), gjson.GetBytes(data, "name")
	if id.Type != gjson.String || id.Str == "" {
		return Call{}, false
	}
	return Call{ID: id.Str, Name: name.Str}, true
}

// Arguments returns a tool/call's arguments as JSON: DSH sends them as
// JSON text (a string holding JSON), other hosts as an object. ok is false
// when the text is not JSON.
func Arguments(data []byte) (raw string, ok bool) {
	a := gjson.GetBytes(data, "arguments")
	switch {
	case a.Type == gjson.String:
		return a.Str, gjson.Valid(a.Str)
	case a.IsObject():
		return a.Raw, true
	}
	return "", false
}

// ResultCallID returns the call a tool/result settles: message.source.callId
// (both formats), format 4's message.toolCallId, a format-0 tool-result
// block's toolCallId, else a host's own data.callId.
func ResultCallID(data []byte) string {
	for _, path := range []string{"message.source.callId", "message.toolCallId", "message.content.0.toolCallId", "callId"} {
		if v := gjson.GetBytes(data, path); v.Type == gjson.String && v.Str != "" {
			return v.Str
		}
	}
	return ""
}

// ResultFailed reports whether a tool/result failed: data.error present
// ({name, code}), the format-4 message's isError, a format-0 tool-result
// block's isError, or a host's own data.isError.
func ResultFailed(data []byte) bool {
	if e := gjson.GetBytes(data, "error"); e.Exists() && e.Type != gjson.Null {
		return true
	}
	for _, path := range []string{"message.isError", "message.content.0.isError", "isError"} {
		if gjson.GetBytes(data, path).Type == gjson.True {
			return true
		}
	}
	return false
}

// BareToolName returns a tool's own name: DSH's MCP client exposes a
// server's tools as mcp__<server>__<tool>.
func BareToolName(name string) string {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return name
	}
	if i := strings.Index(rest, "__"); i > 0 && i+2 < len(rest) {
		return rest[i+2:]
	}
	return name
}

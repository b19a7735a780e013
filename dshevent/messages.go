package dshevent

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Source kinds of a user/message (docs/protocol.md §4.3).
const (
	SourceUser              = "user"
	SourcePlugin            = "plugin"
	SourceCompactCheckpoint = "compact-checkpoint"
	checkpointPlugin        = "compact"
)

// IsPersonsPrompt reports whether a user/message is the person's own
// words. DSH marks them source.kind "user"; everything it injects (the
// runtime-context snapshot, AGENTS.md, the skill catalog, goals,
// reminders, subagent reports, the compaction checkpoint) carries another
// kind. A message without a source comes from a host that does not mark
// injected context, and counts as the person's.
func IsPersonsPrompt(data []byte) bool {
	kind := gjson.GetBytes(data, "source.kind")
	return !kind.Exists() || kind.Str == SourceUser
}

// CheckpointOf returns the compaction id of a compaction checkpoint
// user/message, or "" for any other message: format 0 marks it
// {kind:"plugin", plugin:"compact", compactionId}, format 4
// {kind:"compact-checkpoint", compactionId}.
func CheckpointOf(data []byte) string {
	src := gjson.GetBytes(data, "source")
	if !src.IsObject() {
		return ""
	}
	kind := src.Get("kind").Str
	if kind == SourceCompactCheckpoint || kind == SourcePlugin && src.Get("plugin").Str == checkpointPlugin {
		return src.Get("compactionId").Str
	}
	return ""
}

// IsCheckpoint reports whether a user/message is a compaction checkpoint,
// even one whose compactionId is missing.
func IsCheckpoint(data []byte) bool {
	src := gjson.GetBytes(data, "source")
	kind := src.Get("kind").Str
	return kind == SourceCompactCheckpoint || kind == SourcePlugin && src.Get("plugin").Str == checkpointPlugin
}

// message returns a message's object: data.message for assistant/message
// and tool/result, data itself for user/message (DSH's data is the
// message).
func message(data []byte) gjson.Result {
	if m := gjson.GetBytes(data, "message"); m.IsObject() {
		return m
	}
	return gjson.ParseBytes(data)
}

// Text returns a message's text: its text content blocks joined by a
// newline (DSH), else data.text or a string data.content (other hosts).
// Reasoning, tool-call and image blocks are not text.
func Text(data []byte) string {
	m := message(data)
	if t := m.Get("text"); t.Type == gjson.String {
		return t.Str
	}
	c := m.Get("content")
	if c.Type == gjson.String {
		return c.Str
	}
	var b strings.Builder
	c.ForEach(func(_, block gjson.Result) bool {
		if block.Get("type").Str == "text" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(block.Get("text").Str)
		}
		return true
	})
	return b.String()
}

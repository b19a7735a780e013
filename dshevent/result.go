package dshevent

import (
	"github.com/continuity-dev/continuity/jsonscan"
)

// ToolResult is what a tool/result says about itself, read from its data
// in one pass without decoding or copying its output: the call it
// settles, whether it failed (and data.error's code), how large its
// message is, and the first line of its text.
type ToolResult struct {
	CallID    string
	Failed    bool
	ErrorCode string
	// MessageBytes is the size of data.message as sent: what the result
	// costs the model's context.
	MessageBytes int
	// Excerpt is the first line of the result's text, at most the limit
	// ReadToolResult was given.
	Excerpt string
}

// ReadToolResult reads DSH's tool/result {turn, step, message, error?} in
// both formats (format 4: message {source.callId, toolCallId, content,
// isError}; format 0: message {source.callId, content: [{type:
// "tool-result", toolCallId, content, isError}]}), with the same call-id
// and failure rules as ResultCallID and ResultFailed. ok is false when
// data is not an object or has no message object. Every byte of data is
// passed once: members are read as the walk meets them, whatever their
// order, and the output is only skipped — in O(1) when long are the long
// strings of the frame data was cut from (hostapi.Event.Long).
func ReadToolResult(data []byte, long jsonscan.Spans, excerptLimit int) (r ToolResult, ok bool) {
	w := resultWalk{s: jsonscan.Scanner{B: data, Trusted: true, Long: long}, limit: excerptLimit}
	var topCallID string
	var topFailed, sawMessage bool
	i := w.s.WS(0)
	if i >= len(data) || data[i] != '{' {
		return ToolResult{}, false
	}
	_, err := w.object(i, func(name []byte, v int) (int, error) {
		switch {
		case w.s.StrIs(name, "message") && data[v] == '{':
			sawMessage = true
			end, err := w.message(v)
			r.MessageBytes = end - v
			return end, err
		case w.s.StrIs(name, "error"):
			end, err := w.s.Value(v)
			if e := data[v:end]; string(e) != "null" {
				r.Failed = true
				if eo, ok := ReadObject(e); ok {
					r.ErrorCode, _ = eo.Str("code")
				}
			}
			return end, err
		case w.s.StrIs(name, "callId"):
			end, err := w.s.Value(v)
			topCallID = w.str(data[v:end])
			return end, err
		case w.s.StrIs(name, "isError"):
			end, err := w.s.Value(v)
			topFailed = string(data[v:end]) == "true"
			return end, err
		}
		return w.s.Value(v)
	})
	if err != nil || !sawMessage {
		return ToolResult{}, false
	}
	for _, id := range []string{w.sourceCallID, w.msgCallID, w.blockCallID, topCallID} {
		if id != "" {
			r.CallID = id
			break
		}
	}
	r.Failed = r.Failed || w.msgFailed || w.blockFailed || topFailed
	r.Excerpt = w.excerpt
	return r, true
}

// resultWalk is one pass over a tool/result's data, collecting the
// message's members as it meets them.
type resultWalk struct {
	s                                    jsonscan.Scanner
	limit                                int
	sourceCallID, msgCallID, blockCallID string
	msgFailed, blockFailed               bool
	excerpt                              string
}

// object walks the object at i, calling fn with each member's name (quotes
// included) and value start; fn returns the index past the value.
func (w *resultWalk) object(i int, fn func(name []byte, v int) (int, error)) (int, error) {
	b := w.s.B
	i = w.s.WS(i + 1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		keyEnd, v, err := w.s.Key(i)
		if err != nil {
			return 0, err
		}
		if i, err = fn(b[i:keyEnd], v); err != nil {
			return 0, err
		}
		i = w.s.WS(i)
		if i < len(b) && b[i] == ',' {
			i = w.s.WS(i + 1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		return 0, &jsonscan.SyntaxError{Offset: i}
	}
}

// array walks the array at i, calling fn with each element's start and
// its index; fn returns the index past the element.
func (w *resultWalk) array(i int, fn func(n, v int) (int, error)) (int, error) {
	b := w.s.B
	i = w.s.WS(i + 1)
	for n := 0; i < len(b) && b[i] != ']'; n++ {
		end, err := fn(n, i)
		if err != nil {
			return 0, err
		}
		i = w.s.WS(end)
		if i < len(b) && b[i] == ',' {
			i = w.s.WS(i + 1)
		}
	}
	if i >= len(b) {
		return 0, &jsonscan.SyntaxError{Offset: i}
	}
	return i + 1, nil
}

func (w *resultWalk) str(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	v, _ := w.s.Decoded(raw[1 : len(raw)-1])
	return string(v)
}

// message walks data.message: source.callId, toolCallId, isError, content.
func (w *resultWalk) message(i int) (int, error) {
	b := w.s.B
	return w.object(i, func(name []byte, v int) (int, error) {
		end, err := 0, error(nil)
		switch {
		case w.s.StrIs(name, "content"):
			return w.content(v, true)
		case w.s.StrIs(name, "source"):
			if end, err = w.s.Value(v); err == nil {
				if src, ok := ReadObject(b[v:end]); ok {
					w.sourceCallID, _ = src.Str("callId")
				}
			}
		case w.s.StrIs(name, "toolCallId"):
			if end, err = w.s.Value(v); err == nil {
				w.msgCallID = w.str(b[v:end])
			}
		case w.s.StrIs(name, "isError"):
			if end, err = w.s.Value(v); err == nil {
				w.msgFailed = string(b[v:end]) == "true"
			}
		default:
			end, err = w.s.Value(v)
		}
		return end, err
	})
}

// content walks a message's content: a string, or blocks whose text
// blocks give the excerpt. At the message's level (top) a first block of
// type tool-result is format 0's: its call id, error flag and content
// count as the message's.
func (w *resultWalk) content(i int, top bool) (int, error) {
	b := w.s.B
	switch b[i] {
	case '"':
		end, err := w.s.Value(i)
		if err == nil && w.excerpt == "" {
			w.excerpt = Excerpt(b[i:end], w.limit)
		}
		return end, err
	case '[':
	default:
		return w.s.Value(i)
	}
	return w.array(i, func(n, v int) (int, error) {
		if b[v] != '{' {
			return w.s.Value(v)
		}
		var typ, text, callID []byte
		var failed bool
		before := w.excerpt
		end, err := w.object(v, func(name []byte, mv int) (int, error) {
			if top && n == 0 && w.s.StrIs(name, "content") {
				return w.content(mv, false)
			}
			end, err := w.s.Value(mv)
			switch val := b[mv:end]; {
			case w.s.StrIs(name, "type"):
				typ = val
			case w.s.StrIs(name, "text"):
				text = val
			case w.s.StrIs(name, "toolCallId"):
				callID = val
			case w.s.StrIs(name, "isError"):
				failed = string(val) == "true"
			}
			return end, err
		})
		switch {
		case top && n == 0 && w.s.StrIs(typ, "tool-result"):
			w.blockCallID, w.blockFailed = w.str(callID), failed
		case w.excerpt != before && !w.s.StrIs(typ, "tool-result"):
			// A nested content of a first block that is not a
			// tool-result is not the message's text.
			w.excerpt = before
		}
		if w.excerpt == "" && w.s.StrIs(typ, "text") {
			w.excerpt = Excerpt(text, w.limit)
		}
		return end, err
	})
}

package boundary

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/dshevent"
)

// maxArgsInSubject bounds the arguments a tool item's subject quotes.
const maxArgsInSubject = 96

// callSubject names one tool call by its tool and exact arguments, so a
// reader sees which call a witness is (`bash {"command":"go test ./..."}`)
// and a result supersedes only a result of the same call. Arguments too
// long to quote end in a digest of the whole, which keeps them distinct.
func callSubject(name, args string) string {
	args = strings.Join(strings.Fields(args), " ")
	if args == "" {
		return name
	}
	if len(args) > maxArgsInSubject {
		sum := sha256.Sum256([]byte(args))
		args = bounded(args, maxArgsInSubject) + " #" + hex.EncodeToString(sum[:4])
	}
	return name + " " + args
}

// parseHostToolResult reads DSH's tool/result {turn, step, message, error?}
// (both formats; dshevent reads the call id and the error flag). The item
// is the witness the result is: a success is a stable tool_result, what
// the tool observed; a failure is a swappable error, the current problem,
// which a later success of the same call supersedes. Its subject is the
// call's (filled in by the session state from the tool/call it answers).
func parseHostToolResult(seq int64, data []byte, d gjson.Result, p *parsed) {
	msg := d.Get("message")
	text := resultText(msg)
	it := Item{Seq: seq, Kind: KindToolResult, Tokens: tokensForChars(len(msg.Raw))}
	if dshevent.ResultFailed(data) {
		it.Kind = KindError
		if code := d.Get("error.code").String(); code != "" && text == "" {
			text = code
		}
	}
	it.Text = bounded(firstLine(text), maxErrorLine)
	p.resultOf = dshevent.ResultCallID(data)
	p.items = append(p.items, it)
}

// resultText is a tool result's text: format 4's message.content, or the
// content of format 0's tool-result block, as a string or text blocks.
func resultText(msg gjson.Result) string {
	c := msg.Get("content")
	if first := c.Get("0"); first.Get("type").String() == "tool-result" {
		c = first.Get("content")
	}
	if c.Type == gjson.String {
		return c.Str
	}
	var b strings.Builder
	c.ForEach(func(_, block gjson.Result) bool {
		if block.Get("type").String() == "text" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(block.Get("text").String())
		}
		return true
	})
	return b.String()
}

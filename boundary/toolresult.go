package boundary

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/continuity-dev/continuity/dshevent"
	"github.com/continuity-dev/continuity/jsonscan"
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
// (both formats; dshevent.ReadToolResult reads the call id, the error flag
// and the first line of the text without copying the output). The item is
// the witness the result is: a success is a stable tool_result, what the
// tool observed; a failure is a swappable error, the current problem,
// which a later success of the same call supersedes. Its subject is the
// call's (filled in by the session state from the tool/call it answers).
// It reports false when data has no message object (another host's shape).
func parseHostToolResult(seq int64, data []byte, long jsonscan.Spans, p *parsed) bool {
	r, ok := dshevent.ReadToolResult(data, long, maxErrorLine)
	if !ok {
		return false
	}
	it := Item{Seq: seq, Kind: KindToolResult, Tokens: tokensForChars(r.MessageBytes), Text: r.Excerpt}
	if r.Failed {
		it.Kind = KindError
		if it.Text == "" {
			it.Text = bounded(r.ErrorCode, maxErrorLine)
		}
	}
	p.resultOf = r.CallID
	p.items = append(p.items, it)
	return true
}

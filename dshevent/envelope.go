package dshevent

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// Turn reads data.turn as an integer from 0. null is a manual compaction
// between turns: present is then false and ok true.
func Turn(data []byte) (turn int64, present, ok bool) {
	v := gjson.GetBytes(data, "turn")
	switch v.Type {
	case gjson.Null:
		return 0, false, true
	case gjson.Number:
		n, err := strconv.ParseInt(v.Raw, 10, 64)
		return n, true, err == nil && n >= 0
	}
	return 0, false, false
}

// TurnEndKind returns a turn/end's reason kind: DSH's reason is an object
// ({kind:"completed"}, {kind:"aborted", reason:{kind}}, {kind:"error",
// error}, "max-tokens", "blocked", "interrupted", "forked", or a kind DSH
// adds later); other hosts may send a string. Whatever it says, the turn
// has ended.
func TurnEndKind(data []byte) string {
	r := gjson.GetBytes(data, "reason")
	if r.Type == gjson.String {
		return r.Str
	}
	return r.Get("kind").Str
}

// Range is the span of earlier events a compaction checkpoint replaces,
// both ends included.
type Range struct{ Start, End int64 }

// ReplaceRange reads a surfaceOp that replaces a range: format 0
// {op:"replace", start, end}, format 4 {op:"replace", startSeq, endSeq}.
// "append" and anything else answer ok=false.
func ReplaceRange(surfaceOp []byte) (Range, bool) {
	op := gjson.ParseBytes(surfaceOp)
	if !op.IsObject() || op.Get("op").Str != "replace" {
		return Range{}, false
	}
	for _, names := range [][2]string{{"startSeq", "endSeq"}, {"start", "end"}} {
		s, e := op.Get(names[0]), op.Get(names[1])
		if s.Type == gjson.Number && e.Type == gjson.Number && s.Int() >= 0 && e.Int() >= s.Int() {
			return Range{Start: s.Int(), End: e.Int()}, true
		}
	}
	return Range{}, false
}

// Contains reports whether seq lies in r.
func (r Range) Contains(seq int64) bool { return seq >= r.Start && seq <= r.End }

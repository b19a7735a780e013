package server

import (
	"bytes"
	"encoding/hex"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/jsonscan"
)

// The members of one item (digest_canonical.go states the canonical
// form), as bits of the at-most-once rule.
const (
	itemType = 1 << iota
	itemID
	itemSHA256
	itemUnits
)

// maxDigestItems is the schema's maxItems: one more than the filter's
// bound, so that a list just over it reaches the filter's named refusal.
const maxDigestItems = filter.MaxItems + 1

// canonicalItems reads the items array at i, returning the index past it.
func canonicalItems(sc *jsonscan.Scanner, i int) (items []filter.DescribedItem, end int, ok bool) {
	b := sc.B
	if b[i] != '[' {
		return nil, 0, false
	}
	// An item is at least 2 bytes and a bridge's 20 to 120: room
	// for one per 32 bytes rarely grows and never wastes much.
	items = make([]filter.DescribedItem, 0, min((len(b)-i)/32+1, maxDigestItems))
	// The digests share one array (a reasoning item takes some 100
	// bytes); one that outgrows it moves on to a larger one, and the
	// items already read keep pointing into the old.
	sums := make([][32]byte, 0, (len(b)-i)/100+1)
	if i = sc.WS(i + 1); b[i] == ']' {
		return items, i + 1, true
	}
	for {
		if b[i] != '{' || len(items) == maxDigestItems {
			return nil, 0, false
		}
		it, next, ok := canonicalItem(sc, i, &sums)
		if !ok {
			return nil, 0, false
		}
		items = append(items, it)
		if i = sc.WS(next); b[i] == ']' {
			return items, i + 1, true
		}
		i = sc.WS(i + 1) // past the comma
	}
}

// canonicalItem reads the item object at i, returning the index past it.
// Its members' names and values are found directly: a canonical value is
// a string without escapes, true, false or digits, so nothing needs the
// scanner's general walk.
func canonicalItem(sc *jsonscan.Scanner, i int, sums *[][32]byte) (it filter.DescribedItem, end int, ok bool) {
	b := sc.B
	seen := 0
	if i = sc.WS(i + 1); b[i] == '}' {
		return it, i + 1, true
	}
	for {
		name, next, ok := plainToken(b, i)
		if !ok || b[i] != '"' {
			return it, 0, false
		}
		if next = sc.WS(next); b[next] != ':' {
			return it, 0, false
		}
		v := sc.WS(next + 1)
		val, end, ok := plainToken(b, v)
		if !ok {
			return it, 0, false
		}
		bit := readItemMember(&it, name[1:len(name)-1], val, sums)
		if bit == 0 || seen&bit != 0 {
			return it, 0, false
		}
		seen |= bit
		if i = sc.WS(end); b[i] == '}' {
			return it, i + 1, true
		}
		if b[i] != ',' {
			return it, 0, false
		}
		i = sc.WS(i + 1)
	}
}

// plainToken returns the value at i when it is a string without escapes,
// a literal or a run of digits — every value of a canonical item — and
// the index past it; ok is false for anything else.
func plainToken(b []byte, i int) (tok []byte, end int, ok bool) {
	switch c := b[i]; {
	case c == '"':
		j := bytes.IndexByte(b[i+1:], '"')
		if j < 0 || bytes.IndexByte(b[i+1:i+1+j], '\\') >= 0 {
			return nil, 0, false
		}
		end = i + j + 2
	case '0' <= c && c <= '9':
		for end = i + 1; end < len(b) && '0' <= b[end] && b[end] <= '9'; end++ {
		}
	case c == 't' || c == 'f':
		for end = i + 1; end < len(b) && 'a' <= b[end] && b[end] <= 'z'; end++ {
		}
	default:
		return nil, 0, false
	}
	return b[i:end], end, true
}

// readItemMember reads one member of an item into it; 0 when it is not
// canonical.
func readItemMember(it *filter.DescribedItem, name, v []byte, sums *[][32]byte) int {
	switch string(name) {
	case "type":
		s, ok := asciiString(v, 0, 256, true)
		if !ok {
			return 0
		}
		it.Type = sharedType(s)
		return itemType
	case "id":
		switch string(v) {
		case "true":
			it.HasID = true
		case "false":
		default:
			return 0
		}
		return itemID
	case "sha256":
		if len(v) != 66 || v[0] != '"' || !lowerHex(v[1:65]) || it.SHA256 != nil {
			return 0
		}
		*sums = append(*sums, [32]byte{})
		sum := &(*sums)[len(*sums)-1]
		hex.Decode(sum[:], v[1:65]) // cannot fail: 64 lowercase hex digits
		it.SHA256 = sum
		return itemSHA256
	case "units":
		n, ok := plainInteger(v, 1, maxUnits)
		if !ok {
			return 0
		}
		it.Units = int(n)
		return itemUnits
	}
	return 0
}

// sharedType returns an item type as a string, sharing the common ones
// instead of allocating one per item.
func sharedType(s []byte) string {
	switch string(s) {
	case "reasoning":
		return "reasoning"
	case "message":
		return "message"
	case "function_call":
		return "function_call"
	case "function_call_output":
		return "function_call_output"
	}
	return string(s)
}

func lowerHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

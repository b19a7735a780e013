package server

import (
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
func canonicalItems(sc *jsonscan.Scanner, i int) (items []filter.DigestItem, end int, ok bool) {
	b := sc.B
	if b[i] != '[' {
		return nil, 0, false
	}
	// An item is at least 2 bytes and a bridge's 20 to 120: room
	// for one per 32 bytes rarely grows and never wastes much.
	items = make([]filter.DigestItem, 0, min((len(b)-i)/32+1, maxDigestItems))
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
func canonicalItem(sc *jsonscan.Scanner, i int, sums *[][32]byte) (it filter.DigestItem, end int, ok bool) {
	b := sc.B
	seen := 0
	if i = sc.WS(i + 1); b[i] == '}' {
		return it, i + 1, true
	}
	for {
		keyEnd, v, err := sc.Key(i)
		if err != nil {
			return it, 0, false
		}
		end, err := sc.Value(v)
		if err != nil {
			return it, 0, false
		}
		bit := readItemMember(&it, b[i+1:keyEnd-1], b[v:end], sums)
		if bit == 0 || seen&bit != 0 {
			return it, 0, false
		}
		seen |= bit
		if i = sc.WS(end); b[i] == '}' {
			return it, i + 1, true
		}
		i = sc.WS(i + 1) // past the comma
	}
}

// readItemMember reads one member of an item into it; 0 when it is not
// canonical.
func readItemMember(it *filter.DigestItem, name, v []byte, sums *[][32]byte) int {
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

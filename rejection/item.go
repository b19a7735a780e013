package rejection

import "strings"

// maxItemID bounds an extracted id; real ids are under 64 characters.
const maxItemID = 128

// itemPrefixes are the item ids a rejection may name: reasoning, function
// call, assistant message, compaction and custom tool call items. Anything
// else (ciphertext starts with gAAAA) is never reported.
var itemPrefixes = []string{"rs_", "fc_", "msg_", "cmp_", "ctc_"}

// itemMarkers introduce the item a supplier names: "for item rs_1" (OpenAI,
// gateways), "Item 'fc_1' of type …" (pairing), and Copilot's
// "does not belong to this connection: msg_1" when it adds the id.
var itemMarkers = []string{"for item ", "item '", "item \"", "belong to this connection: "}

// itemID returns the first well-formed item id that follows a marker, read
// from text at the offsets found in lower (which is text, ASCII-lowered). An
// id that runs into the end of the body is dropped: a cut body may have cut
// the id too, and a wrong id is worse than none.
func itemID(text, lower string) string {
	best, bestAt := "", len(lower)+1
	for _, m := range itemMarkers {
		i := strings.Index(lower, m)
		if i < 0 || i >= bestAt {
			continue
		}
		if id := idAt(text, i+len(m)); id != "" {
			best, bestAt = id, i
		}
	}
	return best
}

// idAt reads an item id starting at text[at:].
func idAt(text string, at int) string {
	rest := text[at:]
	prefix := 0
	for _, p := range itemPrefixes {
		if strings.HasPrefix(rest, p) {
			prefix = len(p)
			break
		}
	}
	if prefix == 0 {
		return ""
	}
	n := prefix
	for n < len(rest) && idByte(rest[n]) {
		n++
	}
	if n == prefix || n == len(rest) || n > maxItemID {
		return ""
	}
	return rest[:n]
}

// idByte reports whether c may appear in an item id.
func idByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

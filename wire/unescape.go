package wire

import "bytes"

// htmlEscapes are the escapes encoding/json writes for <, > and & in every
// string it encodes. jsonrpc2 marshals params and results with json.Marshal
// before WriteObject sees them, so an encoder option cannot prevent them;
// they are undone here instead. The wire promises text as the plugin built
// it: a digest a feature computed over its bytes (the projection's context
// digest) must match the bytes the host receives.
var htmlEscapes = [...]struct {
	esc  []byte
	char byte
}{{[]byte(`\u003c`), '<'}, {[]byte(`\u003e`), '>'}, {[]byte(`\u0026`), '&'}}

// UnescapeHTML replaces encoding/json's \u003c, \u003e and \u0026 in b by
// the characters they stand for. An escape counts only where its backslash
// is not itself escaped (an odd run of backslashes ends at it), so the text
// `\\u003c` of a string that really holds a backslash stays as it is. b is
// encoding/json output, so these sequences occur only inside strings, where
// the bare characters are equally valid JSON. b is rewritten in place.
// Features that record a digest of bytes they send (the projection's
// context) apply it first, so what they hash is what the host receives.
func UnescapeHTML(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	out := b[:0]
	for i := 0; i < len(b); {
		if b[i] != '\\' {
			out = append(out, b[i])
			i++
			continue
		}
		if ch, ok := htmlEscapeAt(b[i:]); ok {
			out = append(out, ch)
			i += 6
			continue
		}
		// Any other escape is copied whole, so its second byte (which may
		// be a backslash) never starts an escape of its own.
		out = append(out, b[i])
		if i+1 < len(b) {
			out = append(out, b[i+1])
		}
		i += 2
	}
	return out
}

func htmlEscapeAt(b []byte) (byte, bool) {
	for _, e := range htmlEscapes {
		if bytes.HasPrefix(b, e.esc) {
			return e.char, true
		}
	}
	return 0, false
}

package bench

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
)

// JSONTurn is the filter as a naive Go gateway writes it with
// encoding/json: decode the body, drop the reasoning items whose ciphertext
// digest is in the turn's baseline, encode the rest. It keeps members and
// items as json.RawMessage, the cheapest encoding/json form, so the
// comparison is as kind to encoding/json as it can be (a gateway decoding
// into map[string]any is slower still). Like filter.Turn, the first call
// sets the baseline. It does not strip paired ids and it re-encodes the
// whole body (compacted, keys sorted, HTML-escaped), which the filter must
// never do; outputs therefore agree semantically, not byte for byte.
type JSONTurn struct {
	baseline map[[32]byte]struct{}
}

// errNoInput reports a body without an input array.
var errNoInput = errors.New("bench: the payload has no input array")

// Apply filters one payload and returns the re-encoded body and the number
// of reasoning items omitted.
func (t *JSONTurn) Apply(body []byte) ([]byte, int, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, 0, err
	}
	raw, ok := top["input"]
	if !ok {
		return nil, 0, errNoInput
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, 0, err
	}
	first := t.baseline == nil
	if first {
		t.baseline = map[[32]byte]struct{}{}
	}
	kept, omitted := items[:0], 0
	for _, item := range items {
		var it struct {
			Type             string `json:"type"`
			EncryptedContent string `json:"encrypted_content"`
		}
		if err := json.Unmarshal(item, &it); err != nil {
			return nil, 0, err
		}
		if it.Type == "reasoning" {
			sum := sha256.Sum256([]byte(it.EncryptedContent))
			if first {
				t.baseline[sum] = struct{}{}
			}
			if _, in := t.baseline[sum]; in {
				omitted++
				continue
			}
		}
		kept = append(kept, item)
	}
	in, err := json.Marshal(kept)
	if err != nil {
		return nil, 0, err
	}
	top["input"] = in
	out, err := json.Marshal(top)
	return out, omitted, err
}

// hashCiphers is the hashing limit: single-core SHA-256 over every
// ciphertext of p, or over the whole body when p has none (then the
// comparison is with hashing the payload, which the plugin does anyway for
// its sha256 result). It returns the number of bytes hashed.
func hashCiphers(p Payload) int {
	if len(p.Ciphers) == 0 {
		sha256.Sum256(p.Body)
		return len(p.Body)
	}
	n := 0
	for _, c := range p.Ciphers {
		sha256.Sum256(p.Body[c[0]:c[1]])
		n += c[1] - c[0]
	}
	return n
}

// hashedBytes is what hashCiphers hashes, without hashing.
func hashedBytes(p Payload) int {
	if len(p.Ciphers) == 0 {
		return len(p.Body)
	}
	return p.CipherBytes()
}

package continuation

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/continuity-dev/continuity/hostapi"
)

// idempotencyKey derives the host's session/create key from the calling
// session, the turn and the tool call id. The host replays a tool call with
// the same turn and call id, so the key — and every id derived from it — is
// the same on every replay, before or after a restart; a host that numbers
// call ids per turn ("call_1" again in the next turn) still gets a new
// continuation. Its alphabet is the one wire/session/create.params allows
// ([A-Za-z0-9._:-], no '/').
func idempotencyKey(sessionID string, turn int64, callID string) string {
	return "continuity.continue_session:" + digestOf([]byte(sessionID+"\x00"+strconv.FormatInt(turn, 10)+"\x00"+callID))
}

// legacyKey is the key edges written before the turn was part of it carry;
// such an edge still answers a replay of its own call (same turn).
func legacyKey(sessionID, callID string) string {
	return "continuity.continue_session:" + digestOf([]byte(sessionID+"\x00"+callID))
}

// edgeIDFor and manifestIDFor derive stable ids from the key so the lineage
// block written into the successor's context names the same edge and
// manifest however often the call is replayed.
func edgeIDFor(key string) string { return "continuation-" + digestOf([]byte("edge\x00" + key))[:20] }
func manifestIDFor(key string) string {
	return "projection-" + digestOf([]byte("manifest\x00" + key))[:20]
}

// digestOf is the lowercase hex SHA-256 of b (common/defs.json#/$defs/sha256).
func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// eventDigest is the content digest of one host event: SHA-256 over its
// type, seq, and the whitespace-compacted time and data bytes. Compacting
// makes the digest insensitive to the host's indentation, not to key order;
// a host that reorders keys between reads shows up as a changed source,
// which errs on the side of returning the manifest's version.
func eventDigest(ev hostapi.Event) string {
	var b bytes.Buffer
	b.WriteString(ev.Type)
	b.WriteByte(0)
	b.WriteString(strconv.FormatInt(ev.Seq, 10))
	b.WriteByte(0)
	compactInto(&b, ev.Time)
	b.WriteByte(0)
	compactInto(&b, ev.Data)
	return digestOf(b.Bytes())
}

func compactInto(b *bytes.Buffer, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	if err := json.Compact(b, raw); err != nil {
		b.Write(raw)
	}
}

// rangeDigest chains event digests in order, so a range's digest changes
// when any event in it changes, appears or disappears.
func rangeDigest(events []hostapi.Event) string {
	var b bytes.Buffer
	for _, ev := range events {
		b.WriteString(eventDigest(ev))
		b.WriteByte('\n')
	}
	return digestOf(b.Bytes())
}

// EstimateTokens is the projection compiler's token estimator:
// ceil(len(b)/4) over the UTF-8 JSON bytes a section occupies in the
// context. Four bytes per token slightly overestimates English prose for
// current tokenizers and never depends on a model-specific vocabulary, so
// a projection that fits by this count fits in practice.
func EstimateTokens(b []byte) int { return tokensForLen(len(b)) }

func tokensForLen(n int) int { return (n + 3) / 4 }

func eventID(seq int64) string { return strconv.FormatInt(seq, 10) }

// parseEventID reads a decimal event id (common/defs.json#/$defs/eventId);
// DSH's first event is "0".
func parseEventID(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 0 && strconv.FormatInt(n, 10) == s
}

package proxy

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/continuity-dev/continuity/settings"
)

// DigestPrefix starts the digest form of a session key (SessionID).
const DigestPrefix = "sha256:"

// SessionID is the session a client's raw key names. A key that could be
// a stored sessionId as the plugin's are (settings.ValidSessionID: 1–256
// characters of valid UTF-8, no control or format character) is used as it
// is; any other — longer, not UTF-8, holding CR, LF or another control or
// format character — is used through a fixed-length digest: DigestPrefix
// and the first 32 hex digits (128 bits) of the SHA-256 of its bytes.
//
// A stranger controls the key, and it reaches the ledger, the page, the
// log and the hint's command line: the digest bounds all of them, and,
// being printable ASCII, the hinted command, the page and `continuity
// policy` name one session the settings store accepts. A key already in
// the digest form is valid and used as it is, which names the same session
// as the key it digests; anyone who knows that key could compute it
// anyway. "" stays "" (no session).
func SessionID(raw string) string {
	if raw == "" || settings.ValidSessionID(raw) == nil {
		return raw
	}
	sum := sha256.Sum256([]byte(raw))
	return DigestPrefix + hex.EncodeToString(sum[:16])
}

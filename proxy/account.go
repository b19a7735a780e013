package proxy

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// Account is the digest of the credential a request authenticates with:
// SHA-256 over a domain label, the credential's kind and its value. The
// credential itself is never kept; the digest is all the proxy stores, and
// only its short form (Short) is ever shown.
type Account [32]byte

// accountOf returns the account of a request: ChatGPT's account id when the
// client sends one (its bearer token rotates within one account), else the
// bearer token, else x-api-key. ok is false for a request without any.
func accountOf(h http.Header) (a Account, ok bool) {
	kind, value := "chatgpt-account-id", h.Get("Chatgpt-Account-Id")
	if value == "" {
		kind = "bearer"
		value, _ = strings.CutPrefix(h.Get("Authorization"), "Bearer ")
		if value == h.Get("Authorization") {
			value = "" // not a bearer scheme
		}
	}
	if value == "" {
		kind, value = "x-api-key", h.Get("X-Api-Key")
	}
	if value == "" {
		return Account{}, false
	}
	s := sha256.New()
	s.Write([]byte("continuity-proxy-account\x00" + kind + "\x00"))
	s.Write([]byte(value))
	s.Sum(a[:0])
	return a, true
}

// Short is the first 8 hex digits of the digest, for the page and logs.
func (a Account) Short() string { return hex.EncodeToString(a[:4]) }

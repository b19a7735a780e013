package gemini

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/continuity-dev/continuity/jsonscan"
)

// KeyPrefix starts every conversation key Key derives.
const KeyPrefix = "gemini-"

// Key derives the conversation's key from its first user content: SHA-256
// over a domain label and the decoded text of each text part of the
// leading user contents (those before the first content of another role),
// each with its length, so the same content serialised with other
// whitespace, member order or escapes gives the same key. gemini-cli sends
// no session id with an API key, but its first user content (the
// <session_context> part and the first prompt) is persisted and replayed
// unchanged across --resume; its side requests (model routing) send the
// same two parts as two user contents, which the leading run joins, as the
// client's own history merges them. ok is false when the payload starts
// with no user text. Two conversations that begin with the very same text
// share a key; a client that rewrites its first content (gemini-cli's chat
// compression replaces the history with a summary) starts a new one.
func (d *Doc) Key() (key string, ok bool) {
	h := sha256.New()
	h.Write([]byte("continuity-gemini-conversation\x00"))
	var sc jsonscan.Scanner
	var n [8]byte
	for k := 0; k < len(d.contents) && d.contents[k].user; k++ {
		c := &d.contents[k]
		for _, p := range d.parts[c.first : c.first+c.n] {
			if p.text.end == 0 {
				continue
			}
			v, good := sc.Decoded(d.payload[p.text.start+1 : p.text.end-1])
			if !good {
				return "", false
			}
			binary.BigEndian.PutUint64(n[:], uint64(len(v)))
			h.Write(n[:])
			h.Write(v)
			ok = true
		}
	}
	if !ok {
		return "", false
	}
	return KeyPrefix + hex.EncodeToString(h.Sum(nil)[:16]), true
}

// Contents is how many contents the payload has.
func (d *Doc) Contents() int { return len(d.contents) }

// Current is the index of the first content of the current turn.
func (d *Doc) Current() int { return d.current }

// Steps is how many function-response contents follow the current turn's
// user message: 0 for the turn's first request, one more for each tool
// step of it.
func (d *Doc) Steps() int {
	n := 0
	for k := d.current + 1; k < len(d.contents); k++ {
		if c := &d.contents[k]; c.user && !c.message && c.n > 0 {
			n++
		}
	}
	return n
}

// Messages is how many user contents start a turn (text, no function
// response).
func (d *Doc) Messages() int {
	n := 0
	for k := range d.contents {
		if d.contents[k].message {
			n++
		}
	}
	return n
}

// EndsInMessage reports whether the last content starts a turn: the
// request is the first of its turn.
func (d *Doc) EndsInMessage() bool {
	return len(d.contents) > 0 && d.contents[len(d.contents)-1].message
}

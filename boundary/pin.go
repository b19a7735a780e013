package boundary

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/continuity-dev/continuity/diag"
)

// PinSource says where a pin came from.
type PinSource string

// Pin sources: the session's first user message, the agent's pin_task
// restatement, a predecessor's pin carried into a successor, or a later
// prompt in which the person replaced the task in their own words
// (prompt.go).
const (
	SourceFirstUserMessage PinSource = "first_user_message"
	SourcePinTask          PinSource = "pin_task"
	SourceInherited        PinSource = "inherited"
	SourceReplacement      PinSource = "replacement_message"
)

// Limits on pin_task input. The default pin takes the first user message
// whole, because its identity is its exact text.
const (
	MaxPinTextBytes   = 16384
	MaxPinReasonBytes = 1024
)

// Pin is the originating-task pin: the exact task text, the event that
// stated it, and Digest, the content address of both. OriginSession is the
// session whose event EventID names; it differs from the pinned session only
// for inherited pins.
type Pin struct {
	Digest        string
	EventID       int64
	Text          string
	Source        PinSource
	Reason        string
	OriginSession string
	PinnedAt      time.Time
}

// Digest returns the pin digest of text stated at eventID: "sha256:" and the
// hex SHA-256 of a versioned prefix, the decimal event id and the exact text.
// The event id is part of the identity so that the same words restated for a
// new task later in the session make a new query.
func Digest(eventID int64, text string) string {
	h := sha256.New()
	h.Write([]byte("continuity.pin.v1\n"))
	h.Write([]byte(strconv.FormatInt(eventID, 10)))
	h.Write([]byte{'\n'})
	h.Write([]byte(text))
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// NewPin returns a pin over text at eventID with its digest filled in.
func NewPin(eventID int64, text string, source PinSource, reason, originSession string, at time.Time) Pin {
	return Pin{
		Digest:        Digest(eventID, text),
		EventID:       eventID,
		Text:          text,
		Source:        source,
		Reason:        reason,
		OriginSession: originSession,
		PinnedAt:      at.UTC(),
	}
}

// Verify recomputes the digest; a pin whose text or event id no longer
// hashes to its digest has been changed and must not be used.
func (p Pin) Verify() bool {
	return p.EventID >= 0 && p.Digest == Digest(p.EventID, p.Text)
}

// checkPinInput validates pin_task's text and reason beyond the schema: both
// must be valid UTF-8 with something other than white space in them.
func checkPinInput(text, reason string) error {
	switch {
	case !utf8.ValidString(text) || strings.TrimSpace(text) == "":
		return diag.New(diag.PinInvalid, "the task text is empty or not UTF-8").With("member", "text")
	case len(text) > MaxPinTextBytes:
		return diag.Newf(diag.PinInvalid, "the task text has %d bytes, more than %d", len(text), MaxPinTextBytes).With("member", "text")
	case !utf8.ValidString(reason) || strings.TrimSpace(reason) == "":
		return diag.New(diag.PinInvalid, "the reason is empty or not UTF-8").With("member", "reason")
	case len(reason) > MaxPinReasonBytes:
		return diag.Newf(diag.PinInvalid, "the reason has %d bytes, more than %d", len(reason), MaxPinReasonBytes).With("member", "reason")
	}
	return nil
}

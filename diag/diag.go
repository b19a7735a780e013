// Package diag holds the named diagnostics that continuity reports to hosts.
//
// Every domain failure is a *diag.Error carrying a code, and every code is
// declared in this package: the COPILOT_CONTINUATION_* codes below, the
// CONTINUITY_* codes of session continuation and managed context
// (continuity.go), the protocol-level codes and JSON-RPC numbers (rpc.go)
// and the DSH Remote codes (envelope.go). registry.go lists them all with
// the ui-contract list that documents each, and a test keeps the two in
// step. Feature packages return diagnostics (wrapped with %w where useful);
// BodyOf (envelope.go) is the one mapping from an error to what a host may
// see, and the three envelopes — JSON-RPC errors (-32001 with the code at
// the start of the message and in data.code, so hosts that forward only the
// message still see it), Remote envelopes and tool results — format its
// Body. Messages never contain ciphertext, message text or credentials:
// callers put ids and counts in them, nothing else.
package diag

import (
	"errors"
	"fmt"
)

// Payload filter codes (docs/protocol.md §7).
const (
	InvalidPayload          = "COPILOT_CONTINUATION_INVALID_PAYLOAD"
	UnsupportedReasoning    = "COPILOT_CONTINUATION_UNSUPPORTED_REASONING"
	ItemLimit               = "COPILOT_CONTINUATION_ITEM_LIMIT"
	ReasoningWorkLimit      = "COPILOT_CONTINUATION_REASONING_WORK_LIMIT"
	ProcessingOverlap       = "COPILOT_CONTINUATION_PROCESSING_OVERLAP"
	TurnBoundaryUnavailable = "COPILOT_CONTINUATION_TURN_BOUNDARY_UNAVAILABLE"
	Revoked                 = "COPILOT_CONTINUATION_REVOKED"
)

// Policy codes.
const (
	SettingsUnavailable  = "COPILOT_CONTINUATION_SETTINGS_UNAVAILABLE"
	SettingsInvalid      = "COPILOT_CONTINUATION_SETTINGS_INVALID"
	SettingsLimit        = "COPILOT_CONTINUATION_SETTINGS_LIMIT"
	Conflict             = "COPILOT_CONTINUATION_CONFLICT"
	CommitUncertain      = "COPILOT_CONTINUATION_COMMIT_UNCERTAIN"
	ConsentLimit         = "COPILOT_CONTINUATION_CONSENT_LIMIT"
	InitializationFailed = "COPILOT_CONTINUATION_INITIALIZATION_FAILED"
	TurnInvalid          = "COPILOT_CONTINUATION_TURN_INVALID"
	TurnUnsettled        = "COPILOT_CONTINUATION_TURN_UNSETTLED"
	// StorageUnavailable is a data directory (or a store in it) that
	// cannot be created, opened or written.
	StorageUnavailable = "COPILOT_CONTINUATION_STORAGE_UNAVAILABLE"
	// AccountSwitchPaused answers the first agent/request of a turn on an
	// account other than the session's while the policy is off: the turn
	// waits for the person's choice (docs/protocol.md §16.2).
	AccountSwitchPaused = "COPILOT_CONTINUATION_ACCOUNT_SWITCH_PAUSED"
)

// Compaction codes.
const (
	CompactionScopeUnavailable    = "COPILOT_CONTINUATION_COMPACTION_SCOPE_UNAVAILABLE"
	CompactionBoundaryUnavailable = "COPILOT_CONTINUATION_COMPACTION_BOUNDARY_UNAVAILABLE"
	CompactionAgentUnavailable    = "COPILOT_CONTINUATION_COMPACTION_AGENT_UNAVAILABLE"
	CompactionScopeMismatch       = "COPILOT_CONTINUATION_COMPACTION_SCOPE_MISMATCH"
	CompactionModelChanged        = "COPILOT_CONTINUATION_COMPACTION_MODEL_CHANGED"
	CompactionLimit               = "COPILOT_CONTINUATION_COMPACTION_LIMIT"
)

// Error is one named diagnostic. Code is stable and machine-readable;
// Message is a short English sentence for people; Data carries extra
// structured fields (ids, counts, revisions) that go out in data. Cause,
// when set, is the error that led to it: it is kept for errors.Is/As and
// for logs, and never sent (only Code, Message and Data are).
type Error struct {
	Code    string
	Message string
	Data    map[string]any
	Cause   error
}

// Unwrap returns the cause, so errors.Is(err, fs.ErrPermission) and the
// like see through a diagnostic.
func (e *Error) Unwrap() error { return e.Cause }

// Error returns "CODE: message", the form hosts see in JSON-RPC messages.
func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

// Is reports whether target is a *Error with the same code, so that
// errors.Is(err, diag.New(diag.Revoked, "")) matches any revocation.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// New returns a diagnostic with the given code and message.
func New(code, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Wrap returns a diagnostic that keeps cause behind it.
func Wrap(code, message string, cause error) *Error {
	return &Error{Code: code, Message: message, Cause: cause}
}

// Newf returns a diagnostic with a formatted message.
func Newf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// With returns a copy of e with one more data field.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Data = make(map[string]any, len(e.Data)+1)
	for k, v := range e.Data {
		c.Data[k] = v
	}
	c.Data[key] = value
	return &c
}

// CodeOf returns the diagnostic code in err's chain, or "" when there is none.
func CodeOf(err error) string {
	var d *Error
	if errors.As(err, &d) {
		return d.Code
	}
	return ""
}

// Has reports whether err's chain holds a diagnostic with this code.
func Has(err error, code string) bool {
	return CodeOf(err) == code
}

package remote

import (
	"encoding/json"

	"github.com/continuity-dev/continuity/diag"
)

// Envelope codes that are not diagnostics: the DSH Remote conventions,
// registered in diag with every other code.
const (
	ArgumentsInvalid = diag.ArgumentsInvalid
	SessionNotFound  = diag.SessionNotFound
	MethodNotFound   = diag.MethodNotFound
	HostUnavailable  = diag.HostUnavailable
	InternalError    = diag.InternalError
)

// Envelope is the DSH Remote result: {ok: true, value} or {ok: false,
// error: {code, message, details}}. A failed Remote call is a result, not a
// JSON-RPC error, so the wire layer sends it as the remote/invoke result.
type Envelope struct {
	OK    bool
	Value any
	Error *EnvelopeError
}

// EnvelopeError is a failed call: a DSH code (arguments-invalid,
// session-not-found, …) or a diagnostic code, a short message, and details
// holding ids, counts and revisions only.
type EnvelopeError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// MarshalJSON writes exactly the members of the envelope's branch.
func (e Envelope) MarshalJSON() ([]byte, error) {
	if e.OK {
		return json.Marshal(struct {
			OK    bool `json:"ok"`
			Value any  `json:"value"`
		}{true, e.Value})
	}
	return json.Marshal(struct {
		OK    bool           `json:"ok"`
		Error *EnvelopeError `json:"error"`
	}{false, e.Error})
}

// Success is {ok: true, value}.
func Success(v any) Envelope { return Envelope{OK: true, Value: v} }

// Fail is {ok: false} with a DSH code (arguments-invalid,
// method-not-found, …) and a message.
func Fail(code, message string) Envelope { return Failure(diag.New(code, message)) }

// Failure turns an error into an envelope through diag.BodyOf: a
// *diag.Error keeps its code (COPILOT_CONTINUATION_CONFLICT,
// session-not-found, …), its message and its data as details; anything
// else is internal-error with a generic message.
func Failure(err error) Envelope {
	b := diag.BodyOf(err, InternalError)
	return Envelope{Error: &EnvelopeError{Code: b.Code, Message: b.Message, Details: b.Details}}
}

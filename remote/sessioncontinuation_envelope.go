package remote

import (
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/continuity-dev/continuity/diag"
)

// Envelope codes that are not diagnostics: the DSH Remote conventions.
const (
	ArgumentsInvalid = "arguments-invalid"
	SessionNotFound  = "session-not-found"
	MethodNotFound   = "method-not-found"
	HostUnavailable  = "host-unavailable" // agents/get failed without a code
	InternalError    = "internal-error"   // a failure that carries no code
)

// maxMessage is the longest envelope error message (wire/remote/invoke.result).
const maxMessage = 1024

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

// Failure turns an error into an envelope: a *diag.Error keeps its code
// (COPILOT_CONTINUATION_CONFLICT, session-not-found, …), its message and
// its data as details; anything else is internal-error.
func Failure(err error) Envelope {
	e := &EnvelopeError{Code: InternalError, Message: err.Error(), Details: map[string]any{}}
	var d *diag.Error
	if errors.As(err, &d) {
		e.Code = d.Code
		if d.Message != "" {
			e.Message = d.Message
		} else {
			e.Message = d.Code
		}
		for k, v := range d.Data {
			e.Details[k] = v
		}
	}
	if len(e.Message) > maxMessage {
		n := maxMessage
		for n > 0 && !utf8.RuneStart(e.Message[n]) {
			n--
		}
		e.Message = e.Message[:n]
	}
	return Envelope{Error: e}
}

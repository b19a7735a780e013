package diag

import (
	"errors"
	"unicode/utf8"
)

// Codes of the DSH Remote conventions that are not diagnostics of their
// own: they name what went wrong with a call rather than in a feature.
// Remote envelopes and the feature packages' argument checks share them.
const (
	ArgumentsInvalid = "arguments-invalid"
	SessionNotFound  = "session-not-found"
	MethodNotFound   = "method-not-found"
	HostUnavailable  = "host-unavailable" // agents/get failed without a code
	InternalError    = "internal-error"   // a failure that carries no code
)

// MaxMessage is the longest message an envelope carries
// (wire/remote/invoke.result); longer ones are cut at a rune boundary.
const MaxMessage = 1024

// Body is a failure as every envelope carries it — a JSON-RPC error's
// message and data, a Remote envelope's error, a tool result's
// structured error — so the three cannot disagree about what a failure
// says.
type Body struct {
	Code    string
	Message string
	Details map[string]any // a fresh map the caller may extend
}

// BodyOf is the one mapping from an error to what a host may see. A
// diagnostic keeps its code, its message (its code when it has none) and
// its data; any other error becomes fallback with a generic message, since
// its text may hold anything and belongs in the log only.
func BodyOf(err error, fallback string) Body {
	b := Body{Code: fallback, Message: "an internal error occurred", Details: map[string]any{}}
	var d *Error
	if errors.As(err, &d) {
		b.Code, b.Message = d.Code, d.Message
		if b.Message == "" {
			b.Message = d.Code
		}
		for k, v := range d.Data {
			b.Details[k] = v
		}
	}
	b.Message = clipMessage(b.Message)
	return b
}

// Known reports whether err carries a diagnostic at all.
func Known(err error) bool {
	var d *Error
	return errors.As(err, &d)
}

func clipMessage(m string) string {
	if len(m) <= MaxMessage {
		return m
	}
	n := MaxMessage
	for n > 0 && !utf8.RuneStart(m[n]) {
		n--
	}
	return m[:n]
}

package server

import (
	"context"
	"errors"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/wire"
)

// protocolError is a failure that keeps its JSON-RPC code through wrapping.
type protocolError struct {
	code int
	msg  string
	data map[string]any
}

func (e *protocolError) Error() string { return e.msg }

func invalidParams(msg string) error {
	return &protocolError{code: wire.CodeInvalidParams, msg: "invalid params: " + msg}
}

// errCancelled marks a request cancelled by $/cancelRequest.
var errCancelled = &protocolError{code: wire.CodeCancelled, msg: "request cancelled"}

// rpcError is the JSON-RPC envelope of a failure: protocol errors keep
// their code; diagnostics become -32001 with diag.BodyOf's code at the
// start of the message and in data.code (the same body Remote envelopes
// and tool results carry); a cancellation is -32800; anything else is
// -32603 with a generic message (the dispatcher logs the details, never
// sending them to the host).
func rpcError(err error) *wire.Error {
	var pe *protocolError
	if errors.As(err, &pe) {
		return &wire.Error{Code: pe.code, Message: pe.msg, Data: pe.data}
	}
	if diag.Known(err) {
		b := diag.BodyOf(err, "")
		msg := b.Code
		if b.Message != b.Code {
			msg += ": " + b.Message
		}
		b.Details["code"] = b.Code
		return &wire.Error{Code: wire.CodeDomain, Message: msg, Data: b.Details}
	}
	if errors.Is(err, context.Canceled) {
		return &wire.Error{Code: wire.CodeCancelled, Message: "request cancelled"}
	}
	return &wire.Error{Code: wire.CodeInternalError, Message: "internal error"}
}

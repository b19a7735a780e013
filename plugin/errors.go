package plugin

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

// rpcError is the one place that maps failures to JSON-RPC errors:
// protocol errors keep their code, diagnostics become -32001 with the code at
// the start of the message and in data.code, anything else is -32603 with a
// generic message (details go to the log, never to the host).
func rpcError(err error) *wire.Error {
	var pe *protocolError
	if errors.As(err, &pe) {
		return &wire.Error{Code: pe.code, Message: pe.msg, Data: pe.data}
	}
	var d *diag.Error
	if errors.As(err, &d) {
		data := make(map[string]any, len(d.Data)+1)
		for k, v := range d.Data {
			data[k] = v
		}
		data["code"] = d.Code
		return &wire.Error{Code: wire.CodeDomain, Message: d.Error(), Data: data}
	}
	if errors.Is(err, context.Canceled) {
		return &wire.Error{Code: wire.CodeCancelled, Message: "request cancelled"}
	}
	return &wire.Error{Code: wire.CodeInternalError, Message: "internal error"}
}

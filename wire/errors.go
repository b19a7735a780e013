package wire

import (
	"unsafe"

	"github.com/continuity-dev/continuity/diag"
)

// JSON-RPC error codes of wire's own frames; the values are diag's
// registry (docs/protocol.md §2).
const (
	CodeParseError     = diag.RPCParseError
	CodeInvalidRequest = diag.RPCInvalidRequest
	CodeMethodNotFound = diag.RPCMethodNotFound
	CodeInvalidParams  = diag.RPCInvalidParams
	CodeInternalError  = diag.RPCInternalError
	CodeNotInitialized = diag.RPCNotInitialized
	CodeDomain         = diag.RPCDomain
	CodeCancelled      = diag.RPCCancelled
)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// View returns b as a string without copying. The string must not outlive
// b's owner: bytes of a *Params stay unchanged until it is released, and a
// handler that keeps its params (call, notify) owns them for good.
func View(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

package wire

import "unsafe"

// JSON-RPC error codes used by continuity (PROTOCOL.md §2).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeNotInitialized = -32002
	CodeDomain         = -32001
	CodeCancelled      = -32800
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

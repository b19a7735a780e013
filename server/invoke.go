package server

import (
	"encoding/json"

	"github.com/continuity-dev/continuity/wire"
)

// invokeEnvelope is the schema-checked part of remote/invoke's params.
type invokeEnvelope struct {
	Namespace string `json:"namespace"`
	Method    string `json:"method"`
}

// readInvokeParams reads remote/invoke params once, in the read loop,
// without decoding the args (splitParams): they are a view of the frame,
// checked strictly against their method's own schema when the method
// runs, so a client's bad argument is an arguments-invalid result and a
// 64 MiB member is neither decoded nor copied on the way (issue 18 #7,
// #12). Absent or null args are {}: a method without arguments, such as
// defaults, needs none, and one with required arguments answers
// arguments-invalid.
func readInvokeParams(params *wire.Params) (invokeParams, error) {
	head, args, err := splitParams[invokeEnvelope](params,
		largeMember{method: "remote/invoke", schema: "wire/remote/invoke.params", name: "args"})
	if err != nil {
		return invokeParams{}, err
	}
	if args == nil {
		args = []byte("{}")
	}
	return invokeParams{Namespace: head.Namespace, Method: head.Method, Args: json.RawMessage(args)}, nil
}

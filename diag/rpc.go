package diag

// JSON-RPC error codes continuity sends (docs/protocol.md §2). The
// wire package names them for its own frames; the values live here, with
// the string codes, so that one file answers "what can a host be told".
const (
	RPCParseError     = -32700
	RPCInvalidRequest = -32600
	RPCMethodNotFound = -32601
	RPCInvalidParams  = -32602
	RPCInternalError  = -32603
	RPCNotInitialized = -32002
	// RPCDomain carries every string code of this registry: data.code is
	// the code and the message starts with it.
	RPCDomain    = -32001
	RPCCancelled = -32800
)

// Codes that ride in data.code of a protocol error rather than a -32001
// one (ui-contract/schemas/wire/error.json).
const (
	// FrameTooLarge is a line longer than the frame limit, answered -32600.
	FrameTooLarge = "FRAME_TOO_LARGE"
	// ProtocolVersionUnsupported is an initialize whose protocolVersion
	// continuity does not speak, answered -32602.
	ProtocolVersionUnsupported = "PROTOCOL_VERSION_UNSUPPORTED"
	// PayloadProvidersUnsupported is an initialize whose payloadProviders
	// names no provider continuity can filter, answered -32602.
	PayloadProvidersUnsupported = "PAYLOAD_PROVIDERS_UNSUPPORTED"
	// HostSettingsConflict is the host's own -32001 answer to a settings
	// write whose revision is stale; continuity reads it, never sends it.
	HostSettingsConflict = "SETTINGS_CONFLICT"
)

package diag

// Session continuation codes, listed with their meaning in
// ui-contract/schemas/codes/continuity.json (docs/protocol.md §12).
const (
	// ContinuityArgumentsInvalid is a continuation tool's arguments that do
	// not match their schema. Remote calls answer ArgumentsInvalid instead.
	ContinuityArgumentsInvalid = "CONTINUITY_ARGUMENTS_INVALID"
	HandoffInvalid             = "CONTINUITY_HANDOFF_INVALID"
	SourceUnavailable          = "CONTINUITY_SOURCE_UNAVAILABLE"
	SourceLimit                = "CONTINUITY_SOURCE_LIMIT"
	InitiatingEventUnavailable = "CONTINUITY_INITIATING_EVENT_UNAVAILABLE"
	UnsettledEffects           = "CONTINUITY_UNSETTLED_EFFECTS"
	TransferInvalid            = "CONTINUITY_TRANSFER_INVALID"
	Cycle                      = "CONTINUITY_CYCLE"
	PredecessorConflict        = "CONTINUITY_PREDECESSOR_CONFLICT"
	RateLimited                = "CONTINUITY_RATE_LIMITED"
	ReplayMismatch             = "CONTINUITY_REPLAY_MISMATCH"
	HostCreateFailed           = "CONTINUITY_HOST_CREATE_FAILED"
	// HostRunFailed is a successor the host did not start (session/run).
	HostRunFailed    = "CONTINUITY_HOST_RUN_FAILED"
	LineageForbidden = "CONTINUITY_LINEAGE_FORBIDDEN"
	NotFound         = "CONTINUITY_NOT_FOUND"
	UnknownTool      = "CONTINUITY_UNKNOWN_TOOL"
	// UnknownMethod and BoundaryUnknownMethod are documented but not sent:
	// the continuity namespace's method table answers MethodNotFound.
	UnknownMethod = "CONTINUITY_UNKNOWN_METHOD"
	StoreFailed   = "CONTINUITY_STORE_FAILED"
	TurnEnded     = "CONTINUITY_TURN_ENDED"
)

// Managed context codes (pins and boundary decisions), listed in
// ui-contract/schemas/codes/boundary.json (docs/protocol.md §13).
const (
	// BoundaryArgumentsInvalid is pin_task's arguments that do not match
	// their schema. It is a code of its own, apart from
	// ContinuityArgumentsInvalid, because the wire contract documents both:
	// a host can tell which feature refused the call from the code alone.
	BoundaryArgumentsInvalid = "CONTINUITY_BOUNDARY_ARGUMENTS_INVALID"
	PinInvalid               = "CONTINUITY_PIN_INVALID"
	PinEventUnknown          = "CONTINUITY_PIN_EVENT_UNKNOWN"
	PinUnrecoverable         = "CONTINUITY_PIN_UNRECOVERABLE"
	BoundaryTriggerInvalid   = "CONTINUITY_BOUNDARY_TRIGGER_INVALID"
	BoundaryNotDecided       = "CONTINUITY_BOUNDARY_NOT_DECIDED"
	BoundaryUnknownTool      = "CONTINUITY_BOUNDARY_UNKNOWN_TOOL"
	BoundaryUnknownMethod    = "CONTINUITY_BOUNDARY_UNKNOWN_METHOD"
	BoundaryStoreFailed      = "CONTINUITY_BOUNDARY_STORE_FAILED"
	BoundaryRecordInvalid    = "CONTINUITY_BOUNDARY_RECORD_INVALID"
	// ReseedUnavailable: continue_session asked for the RESEED projection,
	// but the session's latest decision offers none.
	ReseedUnavailable = "CONTINUITY_RESEED_UNAVAILABLE"
)

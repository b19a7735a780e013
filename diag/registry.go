package diag

import "slices"

// The ui-contract lists a code can belong to; each is a file under
// ui-contract/schemas (without .json).
const (
	ListCopilot    = "codes/copilot"
	ListContinuity = "codes/continuity"
	ListBoundary   = "codes/boundary"
	// ListWireError is wire/error.json, which fixes the JSON-RPC code
	// each protocol-level string code goes out with.
	ListWireError = "wire/error"
	// ListRemote is the DSH Remote conventions (docs/protocol.md §5),
	// which are described in prose rather than listed in a schema.
	ListRemote = ""
	// ListProxy is the error codes of `continuity proxy`'s own HTTP
	// answers, listed with their statuses in docs/protocol.md §11's
	// table of codes too.
	ListProxy = "codes/proxy"
)

// Entry is one registered code and the ui-contract list that documents it.
type Entry struct {
	Code string
	List string
}

// registry is every string code continuity reports or reads. A test in
// ui-contract checks it against the schema lists in both directions, so a
// code cannot be sent without being documented, nor documented without
// being declared here.
var registry = []Entry{
	{InvalidPayload, ListCopilot},
	{UnsupportedReasoning, ListCopilot},
	{ItemLimit, ListCopilot},
	{ReasoningWorkLimit, ListCopilot},
	{ProcessingOverlap, ListCopilot},
	{TurnBoundaryUnavailable, ListCopilot},
	{Revoked, ListCopilot},
	{SettingsUnavailable, ListCopilot},
	{SettingsInvalid, ListCopilot},
	{SettingsLimit, ListCopilot},
	{Conflict, ListCopilot},
	{CommitUncertain, ListCopilot},
	{ConsentLimit, ListCopilot},
	{InitializationFailed, ListCopilot},
	{TurnInvalid, ListCopilot},
	{TurnUnsettled, ListCopilot},
	{StorageUnavailable, ListCopilot},
	{AccountSwitchPaused, ListCopilot},
	{CompactionScopeUnavailable, ListCopilot},
	{CompactionBoundaryUnavailable, ListCopilot},
	{CompactionAgentUnavailable, ListCopilot},
	{CompactionScopeMismatch, ListCopilot},
	{CompactionModelChanged, ListCopilot},
	{CompactionLimit, ListCopilot},

	{ContinuityArgumentsInvalid, ListContinuity},
	{HandoffInvalid, ListContinuity},
	{SourceUnavailable, ListContinuity},
	{SourceLimit, ListContinuity},
	{InitiatingEventUnavailable, ListContinuity},
	{UnsettledEffects, ListContinuity},
	{TransferInvalid, ListContinuity},
	{Cycle, ListContinuity},
	{PredecessorConflict, ListContinuity},
	{RateLimited, ListContinuity},
	{ReplayMismatch, ListContinuity},
	{HostCreateFailed, ListContinuity},
	{HostRunFailed, ListContinuity},
	{LineageForbidden, ListContinuity},
	{NotFound, ListContinuity},
	{UnknownTool, ListContinuity},
	{UnknownMethod, ListContinuity},
	{StoreFailed, ListContinuity},
	{TurnEnded, ListContinuity},

	{BoundaryArgumentsInvalid, ListBoundary},
	{PinInvalid, ListBoundary},
	{PinEventUnknown, ListBoundary},
	{PinUnrecoverable, ListBoundary},
	{BoundaryTriggerInvalid, ListBoundary},
	{BoundaryNotDecided, ListBoundary},
	{BoundaryUnknownTool, ListBoundary},
	{BoundaryUnknownMethod, ListBoundary},
	{BoundaryStoreFailed, ListBoundary},
	{BoundaryRecordInvalid, ListBoundary},
	{ReseedUnavailable, ListBoundary},

	{FrameTooLarge, ListWireError},
	{ProtocolVersionUnsupported, ListWireError},
	{PayloadProvidersUnsupported, ListWireError},
	{HostSettingsConflict, ListWireError},

	{ArgumentsInvalid, ListRemote},
	{SessionNotFound, ListRemote},
	{MethodNotFound, ListRemote},
	{HostUnavailable, ListRemote},
	{InternalError, ListRemote},

	{ProxyRequestTooLarge, ListProxy},
	{ProxyRequestUnreadable, ListProxy},
	{ProxyRequestUndecodable, ListProxy},
	{ProxyResponsesPathRefused, ListProxy},
	{ProxyUnknownUpstream, ListProxy},
	{ProxyBodyTooSlow, ListProxy},
	{ProxyBodyBudgetExhausted, ListProxy},
	{ProxyPolicyUnavailable, ListProxy},
	{ProxyUpstreamUnreachable, ListProxy},
	{ProxyUpstreamTimeout, ListProxy},
	{ProxyInternal, ListProxy},
	{ProxyTextMissing, ListProxy},
	{ProxyNotFound, ListProxy},
	{ProxyPageForbidden, ListProxy},
	{ProxyBadRequest, ListProxy},
	{ProxyUnknownSession, ListProxy},
}

// Registry returns every registered code, in declaration order.
func Registry() []Entry { return slices.Clone(registry) }

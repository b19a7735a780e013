package continuation

import "github.com/continuity-dev/continuity/diag"

// Diagnostic codes of session continuation. Each is listed, with its
// meaning, in ui-contract/schemas/codes/continuity.json; a test keeps the two
// in step.
const (
	CodeArgumentsInvalid           = "CONTINUITY_ARGUMENTS_INVALID"
	CodeHandoffInvalid             = "CONTINUITY_HANDOFF_INVALID"
	CodeSourceUnavailable          = "CONTINUITY_SOURCE_UNAVAILABLE"
	CodeSourceLimit                = "CONTINUITY_SOURCE_LIMIT"
	CodeInitiatingEventUnavailable = "CONTINUITY_INITIATING_EVENT_UNAVAILABLE"
	CodeUnsettledEffects           = "CONTINUITY_UNSETTLED_EFFECTS"
	CodeTransferInvalid            = "CONTINUITY_TRANSFER_INVALID"
	CodeCycle                      = "CONTINUITY_CYCLE"
	CodePredecessorConflict        = "CONTINUITY_PREDECESSOR_CONFLICT"
	CodeRateLimited                = "CONTINUITY_RATE_LIMITED"
	CodeReplayMismatch             = "CONTINUITY_REPLAY_MISMATCH"
	CodeHostCreateFailed           = "CONTINUITY_HOST_CREATE_FAILED"
	CodeLineageForbidden           = "CONTINUITY_LINEAGE_FORBIDDEN"
	CodeNotFound                   = "CONTINUITY_NOT_FOUND"
	CodeUnknownTool                = "CONTINUITY_UNKNOWN_TOOL"
	CodeUnknownMethod              = "CONTINUITY_UNKNOWN_METHOD"
	CodeStoreFailed                = "CONTINUITY_STORE_FAILED"
	CodeTurnEnded                  = "CONTINUITY_TURN_ENDED"
)

// Sentinel diagnostics, one per code, for errors.Is and diag.Has checks.
// Functions return copies built with diag.Newf or (*diag.Error).With, which
// match these by code.
var (
	ErrArgumentsInvalid           = diag.New(CodeArgumentsInvalid, "the arguments do not match the schema")
	ErrHandoffInvalid             = diag.New(CodeHandoffInvalid, "the handoff contains runtime-only content")
	ErrSourceUnavailable          = diag.New(CodeSourceUnavailable, "a source cannot be read")
	ErrSourceLimit                = diag.New(CodeSourceLimit, "a source is too large")
	ErrInitiatingEventUnavailable = diag.New(CodeInitiatingEventUnavailable, "no initiating user message")
	ErrUnsettledEffects           = diag.New(CodeUnsettledEffects, "pending runs are neither transferred nor settled")
	ErrTransferInvalid            = diag.New(CodeTransferInvalid, "the state transfer is not valid")
	ErrCycle                      = diag.New(CodeCycle, "the edge would create a cycle")
	ErrPredecessorConflict        = diag.New(CodePredecessorConflict, "the successor already has a predecessor")
	ErrRateLimited                = diag.New(CodeRateLimited, "too many continuations")
	ErrReplayMismatch             = diag.New(CodeReplayMismatch, "a replayed call carries different arguments")
	ErrHostCreateFailed           = diag.New(CodeHostCreateFailed, "the host did not create the successor")
	ErrLineageForbidden           = diag.New(CodeLineageForbidden, "outside the caller's lineage")
	ErrNotFound                   = diag.New(CodeNotFound, "not found")
	ErrUnknownTool                = diag.New(CodeUnknownTool, "not a continuation tool")
	ErrUnknownMethod              = diag.New(CodeUnknownMethod, "not a continuation Remote method")
	ErrStoreFailed                = diag.New(CodeStoreFailed, "the continuation store failed")
	ErrTurnEnded                  = diag.New(CodeTurnEnded, "a continuation ended this turn")
)

// storeErr wraps a database failure as CONTINUITY_STORE_FAILED. The SQL
// error text names tables and constraints, never stored content, so it is
// kept as data for operators.
func storeErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if diag.CodeOf(err) != "" {
		return err
	}
	return diag.Newf(CodeStoreFailed, "continuation store: %s", op).With("cause", err.Error())
}

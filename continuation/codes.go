package continuation

import "github.com/continuity-dev/continuity/diag"

// Sentinel diagnostics of session continuation, one per code of diag's
// registry that this package reports, for errors.Is and diag.Has checks.
// Functions return copies built with diag.Newf or (*diag.Error).With, which
// match these by code.
var (
	ErrArgumentsInvalid           = diag.New(diag.ContinuityArgumentsInvalid, "the arguments do not match the schema")
	ErrHandoffInvalid             = diag.New(diag.HandoffInvalid, "the handoff contains runtime-only content")
	ErrSourceUnavailable          = diag.New(diag.SourceUnavailable, "a source cannot be read")
	ErrSourceLimit                = diag.New(diag.SourceLimit, "a source is too large")
	ErrInitiatingEventUnavailable = diag.New(diag.InitiatingEventUnavailable, "no initiating user message")
	ErrUnsettledEffects           = diag.New(diag.UnsettledEffects, "pending runs are neither transferred nor settled")
	ErrTransferInvalid            = diag.New(diag.TransferInvalid, "the state transfer is not valid")
	ErrCycle                      = diag.New(diag.Cycle, "the edge would create a cycle")
	ErrPredecessorConflict        = diag.New(diag.PredecessorConflict, "the successor already has a predecessor")
	ErrRateLimited                = diag.New(diag.RateLimited, "too many continuations")
	ErrReplayMismatch             = diag.New(diag.ReplayMismatch, "a replayed call carries different arguments")
	ErrHostCreateFailed           = diag.New(diag.HostCreateFailed, "the host did not create the successor")
	ErrLineageForbidden           = diag.New(diag.LineageForbidden, "outside the caller's lineage")
	ErrNotFound                   = diag.New(diag.NotFound, "not found")
	ErrUnknownTool                = diag.New(diag.UnknownTool, "not a continuation tool")
	ErrStoreFailed                = diag.New(diag.StoreFailed, "the continuation store failed")
	ErrTurnEnded                  = diag.New(diag.TurnEnded, "a continuation ended this turn")
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
	return diag.Newf(diag.StoreFailed, "continuation store: %s", op).With("cause", err.Error())
}

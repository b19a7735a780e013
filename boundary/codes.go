package boundary

import "github.com/continuity-dev/continuity/diag"

// Sentinel diagnostics of managed context, one per code of diag's registry
// that this package reports, for errors.Is and diag.Has checks.
var (
	ErrArgumentsInvalid  = diag.New(diag.BoundaryArgumentsInvalid, "the arguments do not match the schema")
	ErrPinInvalid        = diag.New(diag.PinInvalid, "the pin text or reason is not acceptable")
	ErrPinEventUnknown   = diag.New(diag.PinEventUnknown, "no user message to pin the task to")
	ErrPinUnrecoverable  = diag.New(diag.PinUnrecoverable, "the originating-task pin cannot be recovered")
	ErrTriggerInvalid    = diag.New(diag.BoundaryTriggerInvalid, "not a boundary trigger")
	ErrNotDecided        = diag.New(diag.BoundaryNotDecided, "no boundary decision recorded for this session")
	ErrUnknownTool       = diag.New(diag.BoundaryUnknownTool, "not a boundary tool")
	ErrStoreFailed       = diag.New(diag.BoundaryStoreFailed, "the boundary store failed")
	ErrRecordInvalid     = diag.New(diag.BoundaryRecordInvalid, "a stored decision record cannot be read")
	ErrReseedUnavailable = diag.New(diag.ReseedUnavailable, "the latest boundary decision offers no complete RESEED projection")
)

// storeErr wraps a database failure as CONTINUITY_BOUNDARY_STORE_FAILED. The
// SQL error text names tables and constraints, never stored content, so it
// is kept as data for operators.
func storeErr(op string, err error) error {
	if err == nil || diag.CodeOf(err) != "" {
		return err
	}
	return diag.Newf(diag.BoundaryStoreFailed, "boundary store: %s", op).With("cause", err.Error())
}

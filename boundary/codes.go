package boundary

import "github.com/continuity-dev/continuity/diag"

// Diagnostic codes of managed context. Each is listed, with its meaning, in
// ui-contract/schemas/codes/boundary.json; a test keeps the two in step.
const (
	CodeArgumentsInvalid = "CONTINUITY_BOUNDARY_ARGUMENTS_INVALID"
	CodePinInvalid       = "CONTINUITY_PIN_INVALID"
	CodePinEventUnknown  = "CONTINUITY_PIN_EVENT_UNKNOWN"
	CodePinUnrecoverable = "CONTINUITY_PIN_UNRECOVERABLE"
	CodeTriggerInvalid   = "CONTINUITY_BOUNDARY_TRIGGER_INVALID"
	CodeNotDecided       = "CONTINUITY_BOUNDARY_NOT_DECIDED"
	CodeUnknownTool      = "CONTINUITY_BOUNDARY_UNKNOWN_TOOL"
	CodeUnknownMethod    = "CONTINUITY_BOUNDARY_UNKNOWN_METHOD"
	CodeStoreFailed      = "CONTINUITY_BOUNDARY_STORE_FAILED"
	CodeRecordInvalid    = "CONTINUITY_BOUNDARY_RECORD_INVALID"
	// CodeReseedUnavailable: continue_session asked for the RESEED
	// projection, but the session's latest decision offers none.
	CodeReseedUnavailable = "CONTINUITY_RESEED_UNAVAILABLE"
)

// Sentinel diagnostics, one per code, for errors.Is and diag.Has checks.
var (
	ErrArgumentsInvalid  = diag.New(CodeArgumentsInvalid, "the arguments do not match the schema")
	ErrPinInvalid        = diag.New(CodePinInvalid, "the pin text or reason is not acceptable")
	ErrPinEventUnknown   = diag.New(CodePinEventUnknown, "no user message to pin the task to")
	ErrPinUnrecoverable  = diag.New(CodePinUnrecoverable, "the originating-task pin cannot be recovered")
	ErrTriggerInvalid    = diag.New(CodeTriggerInvalid, "not a boundary trigger")
	ErrNotDecided        = diag.New(CodeNotDecided, "no boundary decision recorded for this session")
	ErrUnknownTool       = diag.New(CodeUnknownTool, "not a boundary tool")
	ErrUnknownMethod     = diag.New(CodeUnknownMethod, "not a boundary Remote method")
	ErrStoreFailed       = diag.New(CodeStoreFailed, "the boundary store failed")
	ErrRecordInvalid     = diag.New(CodeRecordInvalid, "a stored decision record cannot be read")
	ErrReseedUnavailable = diag.New(CodeReseedUnavailable, "the latest boundary decision offers no complete RESEED projection")
)

// storeErr wraps a database failure as CONTINUITY_BOUNDARY_STORE_FAILED. The
// SQL error text names tables and constraints, never stored content, so it
// is kept as data for operators.
func storeErr(op string, err error) error {
	if err == nil || diag.CodeOf(err) != "" {
		return err
	}
	return diag.Newf(CodeStoreFailed, "boundary store: %s", op).With("cause", err.Error())
}

package boundary

import "github.com/continuity-dev/continuity/continuation"

// Projection is what a complete RESEED offers the lead: the arguments of a
// continue_session call (docs/design.md §3) built from durable positive state, plus
// Query, the same state as the one text a successor would read. The lead
// passes Reason, Title, Handoff and Sources to continue_session unchanged.
type Projection struct {
	Reason  string   `json:"reason"`
	Title   string   `json:"title"`
	Handoff Handoff  `json:"handoff"`
	Sources []Source `json:"sources"`
	Query   string   `json:"query"`
}

// Handoff and Source are continue_session's own argument types, so a
// projection is passed to the continuation tool without translation.
type (
	Handoff = continuation.Handoff
	Source  = continuation.Source
)

// continueReasons maps decision reasons to the continue_session reason a
// projection is offered with. Reasons that are not listed (APPEND, and the
// unrecoverable pin) offer no projection.
var continueReasons = map[Reason]string{
	ReasonTaskChanged:           "topic_change",
	ReasonContextPressure:       "context_pressure",
	ReasonCompaction:            "context_pressure",
	ReasonResidueDominates:      "phase_change",
	ReasonNoNewWitness:          "phase_change",
	ReasonReconstructionCheaper: "phase_change",
}

// Limits of continue_session's schema that a projection must respect.
const (
	maxHandoffText  = 16384
	maxHandoffItems = 64
	maxSources      = 64
	maxTitleRunes   = 80
)

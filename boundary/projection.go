package boundary

// Projection is what a complete RESEED offers the lead: the arguments of a
// continue_session call (seed 000) built from durable positive state, plus
// Query, the same state as the one text a successor would read. The lead
// passes Reason, Title, Handoff and Sources to continue_session unchanged.
type Projection struct {
	Reason  string   `json:"reason"`
	Title   string   `json:"title"`
	Handoff Handoff  `json:"handoff"`
	Sources []Source `json:"sources"`
	Query   string   `json:"query"`
}

// Handoff has the shape of continue_session's handoff.
type Handoff struct {
	Purpose          string   `json:"purpose"`
	CurrentRequest   string   `json:"currentRequest"`
	EstablishedFacts []string `json:"establishedFacts,omitempty"`
	Decisions        []string `json:"decisions,omitempty"`
	OpenQuestions    []string `json:"openQuestions,omitempty"`
	NextActions      []string `json:"nextActions,omitempty"`
	Cautions         []string `json:"cautions,omitempty"`
}

// Source is a continue_session source of kind "session_event": the exact
// event a handoff line came from, so the successor can recall it.
type Source struct {
	Kind      string `json:"kind"`
	SessionID string `json:"sessionId"`
	EventID   string `json:"eventId"`
	Relevance string `json:"relevance"`
}

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

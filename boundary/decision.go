package boundary

import "time"

// Verdict is the outcome of a boundary.
type Verdict string

// The two outcomes of the seed's procedure.
const (
	Append Verdict = "APPEND"
	Reseed Verdict = "RESEED"
)

// Reason is the closed vocabulary of why a boundary decided what it did, in
// the order the procedure tests them.
type Reason string

const (
	// ReasonPinMissing: no pin was ever established, or its row is gone.
	ReasonPinMissing Reason = "pin_missing"
	// ReasonPinChanged: the stored pin no longer verifies (digest or event).
	ReasonPinChanged Reason = "pin_changed"
	// ReasonTaskChanged: pin_task replaced the task since the last decision.
	ReasonTaskChanged Reason = "task_changed"
	// ReasonCompaction: compaction is about to replace history, which
	// threatens the pin; the positive state is rebuilt instead.
	ReasonCompaction Reason = "compaction_threatens_pin"
	// ReasonContextPressure: usage crossed Options.PressureRatio, or the lead
	// reported pressure.
	ReasonContextPressure Reason = "context_pressure"
	// ReasonResidueDominates: stale residue (superseded items, failed
	// approaches) outweighs the stable state in tokens.
	ReasonResidueDominates Reason = "residue_dominates"
	// ReasonNoNewWitness: the turn adds nothing that changes or justifies the
	// next action (narration, repetition, transient results).
	ReasonNoNewWitness Reason = "no_new_witness"
	// ReasonReconstructionCheaper: the turn adds witness, but retaining the
	// history costs more than reconstructing it.
	ReasonReconstructionCheaper Reason = "reconstruction_cheaper"
	// ReasonTaskEstablished: the turn states the task itself; the first
	// boundary appends it.
	ReasonTaskEstablished Reason = "task_established"
	// ReasonTaskSharpened: the turn adds current witness for the same pin and
	// retaining it is cheaper than reconstruction.
	ReasonTaskSharpened Reason = "task_sharpened"
)

// Trigger is the boundary at which Decide runs.
type Trigger string

// Boundaries.
const (
	TurnEnd         Trigger = "turn_end"
	CompactionStart Trigger = "compaction_start"
	ContextPressure Trigger = "context_pressure"
)

func (t Trigger) valid() bool {
	return t == TurnEnd || t == CompactionStart || t == ContextPressure
}

// Decision is one persisted decision record, the value of the
// continuity.boundary Remote (view/BoundaryDecision).
type Decision struct {
	ID        int64     `json:"id"`
	SessionID string    `json:"sessionId"`
	Decision  Verdict   `json:"decision"`
	Reason    Reason    `json:"reason"`
	Trigger   Trigger   `json:"trigger"`
	Pin       PinRecord `json:"pin"`
	Kept      []ItemRef `json:"kept"`
	Dropped   []ItemRef `json:"dropped"`
	Numbers   Numbers   `json:"numbers"`
	Reseed    *Outcome  `json:"reseed,omitempty"`
	// Plan traces the session's current plan (DSH's todo/write) to the
	// pin it serves; absent when there is no plan after the pin.
	Plan         *PlanRecord `json:"plan,omitempty"`
	ThroughEvent string      `json:"throughEventId,omitempty"`
	ViewComplete bool        `json:"viewComplete"`
	At           time.Time   `json:"at"`
}

// PinRecord is the pin as a decision saw it. Digest and EventID are null
// when no pin exists; Recoverable is false with a Problem when the pin is
// missing or does not verify, and then nothing is inferred in its place.
type PinRecord struct {
	Digest        *string   `json:"digest"`
	EventID       *string   `json:"eventId"`
	Source        PinSource `json:"source,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	OriginSession string    `json:"originSession,omitempty"`
	Recoverable   bool      `json:"recoverable"`
	Problem       string    `json:"problem,omitempty"`
}

// Pin problems.
const (
	PinProblemNeverSeen      = "never_seen"
	PinProblemDeleted        = "deleted"
	PinProblemDigestMismatch = "digest_mismatch"
	PinProblemEventMismatch  = "event_mismatch"
)

// ItemRef names one kept or dropped item: its event, kind, subject, class,
// token cost and why it was kept or dropped. It never carries the text.
type ItemRef struct {
	EventID      string `json:"eventId"`
	Index        int    `json:"index"`
	Kind         Kind   `json:"kind"`
	Subject      string `json:"subject,omitempty"`
	Class        Class  `json:"class"`
	Tokens       int    `json:"tokens"`
	Why          string `json:"why"`
	SupersededBy string `json:"supersededBy,omitempty"`
}

// Why values of kept and dropped items.
const (
	WhyPin            = "pin"
	WhyStable         = "stable"
	WhyCurrentRequest = "current_request"
	WhyCurrentPlan    = "current_plan"
	WhyNeeded         = "needed_for_next_action"
	WhySuperseded     = "superseded"
	WhyFailedApproach = "failed_approach"
	WhySwappable      = "swappable"
	WhyNarration      = "narration"
	WhyBeforePin      = "before_pin"
)

// Numbers are the quantities that decided the boundary.
type Numbers struct {
	RetainedTokens       int   `json:"retainedTokens"`
	ReconstructionTokens int   `json:"reconstructionTokens"`
	QueryTokens          int   `json:"queryTokens"`
	OverheadTokens       int   `json:"overheadTokens"`
	KeptTokens           int   `json:"keptTokens"`
	StaleTokens          int   `json:"staleTokens"`
	ResidueTokens        int   `json:"residueTokens"`
	WitnessesKept        int   `json:"witnessesKept"`
	WitnessesSuperseded  int   `json:"witnessesSuperseded"`
	NewWitnesses         int   `json:"newWitnesses"`
	ResidueDropped       int   `json:"residueDropped"`
	StaleDropped         int   `json:"staleDropped"`
	UnreadableEvents     int   `json:"unreadableEvents"`
	InputTokens          int64 `json:"inputTokens,omitempty"`
	ContextWindow        int64 `json:"contextWindow,omitempty"`
}

// Outcome is a RESEED's step-7 result. Projection is present only when the
// reseed is complete; an incomplete one lists its Problems and is not to be
// used.
type Outcome struct {
	Complete   bool        `json:"complete"`
	Problems   []string    `json:"problems"`
	Projection *Projection `json:"projection,omitempty"`
}

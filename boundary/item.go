package boundary

import "strconv"

// Class is an item's place in the doctrine: stable state survives append,
// compaction, reseed and restart; swappable state is useful only while it
// changes the next decision.
type Class string

// The two classes.
const (
	Stable    Class = "stable"
	Swappable Class = "swappable"
)

// Kind names what an item is; the package doc lists which event makes which.
type Kind string

// Item kinds.
const (
	KindTask           Kind = "task"
	KindRequest        Kind = "request"
	KindCheckpoint     Kind = "checkpoint"
	KindConstraint     Kind = "constraint"
	KindDecision       Kind = "decision"
	KindEffect         Kind = "effect"
	KindNextAction     Kind = "next_action"
	KindPlan           Kind = "plan"
	KindHypothesis     Kind = "hypothesis"
	KindFailedApproach Kind = "failed_approach"
	KindNarration      Kind = "narration"
	KindTest           Kind = "test"
	KindBuild          Kind = "build"
	KindError          Kind = "error"
	KindResult         Kind = "result"
	// KindToolResult is a tool call's successful result as the host's
	// tool/result shows it: a witness of what the tool observed.
	KindToolResult Kind = "tool_result"
	// KindInjected is context the host put in a user/message (runtime
	// context, AGENTS.md, reminders): it costs tokens, answers nothing.
	KindInjected Kind = "injected"
	// KindOutcome is the final answer of a completed turn whose tool
	// results succeeded: the agent's statement of the turn's confirmed
	// outcome (see outcome.go).
	KindOutcome Kind = "outcome"
)

// annotationKinds maps assistant/message annotation kinds to item kinds.
// Anything not listed is narration: a kind the rules do not know cannot be
// trusted to be stable.
var annotationKinds = map[string]Kind{
	"constraint":      KindConstraint,
	"decision":        KindDecision,
	"effect":          KindEffect,
	"next_action":     KindNextAction,
	"plan":            KindPlan,
	"hypothesis":      KindHypothesis,
	"failed_approach": KindFailedApproach,
}

// stableKinds are the kinds that are stable whatever their outcome; test and
// build results are stable only when they passed.
var stableKinds = map[Kind]bool{
	KindTask: true, KindCheckpoint: true, KindConstraint: true,
	KindDecision: true, KindEffect: true, KindNextAction: true, KindToolResult: true, KindOutcome: true,
}

// Item is one classified piece of session state. Seq and Index locate it
// (an assistant message may carry several annotations). Text is what a
// reseed may say about it: a person's prompt whole, anything else cut to
// its bound (events.go); Tokens is what it costs in the retained history,
// measured on the full event content.
type Item struct {
	Seq     int64
	Index   int
	Kind    Kind
	Subject string
	Class   Class
	Passed  *bool
	Text    string
	Tokens  int
	// Target is what a tool call acted on (callTarget), for the
	// supersession of failed attempts; it is kept in memory only.
	Target string
	// Intent is what a person's prompt after the first one does to the
	// query (ClassifyPrompt); "" for every other item. In memory only.
	Intent Intent
	// steps are a todo/write plan's steps (plan.go). In memory only.
	steps []planStep
}

// personSubject is the subject of a constraint the person stated in their
// own words (a narrowing or a negation, intent.go). Such constraints never
// supersede one another: each one narrows the task further.
const personSubject = "person"

// classify sets the item's class from its kind and outcome.
func (it *Item) classify() {
	switch {
	case stableKinds[it.Kind]:
		it.Class = Stable
	case (it.Kind == KindTest || it.Kind == KindBuild) && it.Passed != nil && *it.Passed:
		it.Class = Stable
	default:
		it.Class = Swappable
	}
}

// durable reports whether the item belongs in the witness store: every
// stable item, and test and build results of either outcome, because a later
// failure must be able to supersede a stored success after a restart.
func (it Item) durable() bool {
	return it.Kind != KindTask && (it.Class == Stable || it.Kind == KindTest || it.Kind == KindBuild)
}

// key orders and identifies items.
type key struct {
	seq int64
	idx int
}

func (it Item) key() key { return key{it.Seq, it.Index} }

func eventID(seq int64) string { return strconv.FormatInt(seq, 10) }

// supersessionKey is the package doc's supersession rule as code: items
// with the same non-empty key supersede each other, the latest wins.
func (it Item) supersessionKey() string {
	switch it.Kind {
	case KindNextAction, KindPlan, KindRequest, KindCheckpoint:
		return string(it.Kind)
	case KindTest, KindBuild:
		return string(it.Kind) + "\x00" + it.Subject
	case KindError, KindResult, KindToolResult:
		if it.Subject == "" {
			return ""
		}
		return "tool\x00" + it.Subject
	case KindConstraint, KindDecision, KindEffect, KindHypothesis:
		if it.Subject == "" || it.Kind == KindConstraint && it.Subject == personSubject {
			return ""
		}
		return string(it.Kind) + "\x00" + it.Subject
	}
	return ""
}

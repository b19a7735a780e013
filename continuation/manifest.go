package continuation

import (
	"bytes"
	"encoding/json"
)

// Manifest is the projection manifest (docs/design.md §3): the
// exact account of what seeded one successor. It says which events, resources
// and state revisions the successor received, which stayed linked but cold
// and why, and which compiler built it, so nobody has to trust the prose.
type Manifest struct {
	ManifestID      string   `json:"manifestId"`
	EdgeID          string   `json:"edgeId"`
	PredecessorID   string   `json:"predecessorId"`
	SuccessorID     string   `json:"successorId,omitempty"`
	OriginID        string   `json:"originId"`
	InitiatingEvent EventRef `json:"initiatingEvent"`
	CreatedAt       int64    `json:"createdAt"`
	Actor           Actor    `json:"actor"`
	Reason          string   `json:"reason"`
	Corrects        string   `json:"corrects,omitempty"`
	// Title and Description are the successor's, as continue_session gave
	// them; PredecessorTitle is the predecessor's latest session/title.
	Title            string         `json:"title"`
	Description      string         `json:"description,omitempty"`
	PredecessorTitle string         `json:"predecessorTitle,omitempty"`
	Included         []ManifestItem `json:"included"`
	Omitted          []ManifestItem `json:"omitted"`
	State            []StateItem    `json:"state"`
	Compiler         Compiler       `json:"compiler"`
	Model            *Model         `json:"model,omitempty"`
	Tokens           TokenCost      `json:"tokens"`
	Digests          Digests        `json:"digests"`
}

// EventRef names one exact event with its content digest.
type EventRef struct {
	SessionID string `json:"sessionId"`
	EventID   string `json:"eventId"`
	Digest    string `json:"digest"`
}

// Actor says who made the transition: the agent of a session, through one
// tool call in one turn.
type Actor struct {
	Kind      string `json:"kind"` // "agent"
	SessionID string `json:"sessionId"`
	CallID    string `json:"callId"`
	Turn      int64  `json:"turn"`
}

// ManifestItem is one selected source. Tier says where the compiler placed
// it (pinned: cited by the agent; recent: the exchanges just before the
// initiating message; excerpt: older messages). Mode is exact (the events
// are in the context) or reference (a handle only: resources and memory are
// cited, never fetched, by this plugin). Omitted items carry Reason and no
// Mode; their Tokens is what loading them would have cost.
type ManifestItem struct {
	Tier        string `json:"tier"`
	Kind        string `json:"kind"`
	Mode        string `json:"mode,omitempty"`
	SessionID   string `json:"sessionId,omitempty"`
	FromEventID string `json:"fromEventId,omitempty"`
	ToEventID   string `json:"toEventId,omitempty"`
	EventID     string `json:"eventId,omitempty"`
	Events      int    `json:"events,omitempty"`
	URL         string `json:"url,omitempty"`
	Version     string `json:"version,omitempty"`
	BlockID     string `json:"blockId,omitempty"`
	Path        string `json:"path,omitempty"`
	CID         string `json:"cid,omitempty"`
	Relevance   string `json:"relevance,omitempty"`
	Digest      string `json:"digest,omitempty"`
	Tokens      int    `json:"tokens"`
	Reason      string `json:"reason,omitempty"`
}

// Compiler identifies the projection compiler that built a context.
type Compiler struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Model is the predecessor's model when the plugin knew it at call time.
type Model struct {
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model"`
}

// TokenCost is the budget account of one projection.
type TokenCost struct {
	Budget     int    `json:"budget"`
	Used       int    `json:"used"`
	Estimator  string `json:"estimator"`
	OverBudget bool   `json:"overBudget"`
}

// Digests are SHA-256 hex digests: of the exact context bytes given to the
// host, of the handoff, and of the manifest body (this struct with
// successorId and digests.manifest empty), which is fixed before the
// successor exists.
type Digests struct {
	Context  string `json:"context"`
	Handoff  string `json:"handoff"`
	Manifest string `json:"manifest,omitempty"`
}

// Omitted reasons.
const (
	ReasonBudget = "budget"
	// ReasonNotSelected is a predecessor event the compiler did not offer
	// (outside its window of messages, or not a message): linked, cold.
	ReasonNotSelected = "not_selected"
)

// Compiler identity recorded in every manifest.
// Version 2 adds the host-ready form, pays the omitted list from the
// budget and accounts for every predecessor event.
var compilerID = Compiler{Name: "continuity-projection", Version: "2"}

// estimatorName documents EstimateTokens in every manifest.
const estimatorName = "ceil(utf8_bytes/4)"

// marshal encodes v without HTML escaping, so '<', '>' and '&' inside
// strings keep their bytes, and raw host tokens pass through unchanged.
func marshal(v any) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		panic("continuation: marshal: " + err.Error()) // only package-built values reach here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

package continuation

// The view models below are what clients render (ui-contract view/*). They
// carry ids, counts and reasons; every label is the client's, from its own
// texts, so nothing here is user-language prose.

// LineagePath is the lineage control: the sessions from the origin to the
// current one ("Rethink compaction → Session continuation proposal → …").
type LineagePath struct {
	Sessions []LineageNode `json:"sessions"`
}

// LineageNode is one session on a path. EdgeID, Reason and At describe the
// edge that created it (absent for the origin).
type LineageNode struct {
	SessionID string `json:"sessionId"`
	Title     string `json:"title,omitempty"`
	EdgeID    string `json:"edgeId,omitempty"`
	Reason    string `json:"reason,omitempty"`
	At        int64  `json:"at,omitempty"`
	Current   bool   `json:"current"`
}

// SuccessorBanner starts a successor: "Continued from …", Back, View handoff.
type SuccessorBanner struct {
	PredecessorID    string   `json:"predecessorId"`
	PredecessorTitle string   `json:"predecessorTitle,omitempty"`
	SuccessorID      string   `json:"successorId"`
	EdgeID           string   `json:"edgeId"`
	ManifestID       string   `json:"manifestId"`
	Reason           string   `json:"reason"`
	At               int64    `json:"at"`
	Corrects         string   `json:"corrects,omitempty"`
	Actions          []string `json:"actions"`
}

// TransitionCard ends a predecessor: "Continued in …", what was carried,
// Open continuation, Inspect handoff. A predecessor has one card per edge.
type TransitionCard struct {
	PredecessorID  string   `json:"predecessorId"`
	SuccessorID    string   `json:"successorId"`
	SuccessorTitle string   `json:"successorTitle"`
	EdgeID         string   `json:"edgeId"`
	ManifestID     string   `json:"manifestId"`
	Reason         string   `json:"reason"`
	At             int64    `json:"at"`
	Corrects       string   `json:"corrects,omitempty"`
	Carried        Carried  `json:"carried"`
	Actions        []string `json:"actions"`
	// Run is whether the successor's first run started (session/run);
	// absent for edges made before runs were recorded.
	Run *SuccessorRun `json:"run,omitempty"`
}

// Carried counts what a handoff carried, for the card's one-line summary.
type Carried struct {
	CurrentRequest   bool `json:"currentRequest"`
	InitiatingEvent  bool `json:"initiatingEvent"`
	EstablishedFacts int  `json:"establishedFacts"`
	Decisions        int  `json:"decisions"`
	OpenQuestions    int  `json:"openQuestions"`
	NextActions      int  `json:"nextActions"`
	Cautions         int  `json:"cautions"`
	Sources          int  `json:"sources"`
	StateItems       int  `json:"stateItems"`
	Omitted          int  `json:"omitted"`
}

// HandoffInspector is "View handoff": the readable handoff beside its exact
// manifest, with included and omitted sources.
type HandoffInspector struct {
	EdgeID          string         `json:"edgeId"`
	ManifestID      string         `json:"manifestId"`
	PredecessorID   string         `json:"predecessorId"`
	SuccessorID     string         `json:"successorId"`
	Title           string         `json:"title"`
	Reason          string         `json:"reason"`
	At              int64          `json:"at"`
	Handoff         Handoff        `json:"handoff"`
	InitiatingEvent EventRef       `json:"initiatingEvent"`
	Included        []ManifestItem `json:"included"`
	Omitted         []ManifestItem `json:"omitted"`
	State           []StateItem    `json:"state"`
	Tokens          TokenCost      `json:"tokens"`
	// OmittedRecalls counts the successor's recalls of omitted sources.
	OmittedRecalls []OmittedRecall `json:"omittedRecalls"`
}

// View actions.
const (
	ActionBack             = "back"
	ActionViewHandoff      = "viewHandoff"
	ActionOpenContinuation = "openContinuation"
	ActionInspectHandoff   = "inspectHandoff"
)

func bannerFor(e Edge, predecessorTitle string) SuccessorBanner {
	return SuccessorBanner{PredecessorID: e.PredecessorID, PredecessorTitle: predecessorTitle, SuccessorID: e.SuccessorID,
		EdgeID: e.ID, ManifestID: e.ManifestID, Reason: e.Reason, At: e.CreatedAt, Corrects: e.Corrects,
		Actions: []string{ActionBack, ActionViewHandoff}}
}

func cardFor(e Edge, h Handoff, m Manifest) TransitionCard {
	return TransitionCard{PredecessorID: e.PredecessorID, SuccessorID: e.SuccessorID, SuccessorTitle: e.Title, EdgeID: e.ID,
		ManifestID: e.ManifestID, Reason: e.Reason, At: e.CreatedAt, Corrects: e.Corrects,
		Carried: Carried{CurrentRequest: h.CurrentRequest != "", InitiatingEvent: m.InitiatingEvent.EventID != "",
			EstablishedFacts: len(h.EstablishedFacts), Decisions: len(h.Decisions), OpenQuestions: len(h.OpenQuestions),
			NextActions: len(h.NextActions), Cautions: len(h.Cautions), Sources: len(m.Included), StateItems: len(m.State),
			Omitted: len(m.Omitted)},
		Actions: []string{ActionOpenContinuation, ActionInspectHandoff}}
}

func inspectorFor(e Edge, h Handoff, m Manifest) HandoffInspector {
	state := make([]StateItem, len(m.State))
	for i, it := range m.State {
		it.Data = nil // the inspector shows revisions; the exact plan stays in the manifest's store
		state[i] = it
	}
	return HandoffInspector{EdgeID: e.ID, ManifestID: e.ManifestID, PredecessorID: e.PredecessorID, SuccessorID: e.SuccessorID,
		Title: e.Title, Reason: e.Reason, At: e.CreatedAt, Handoff: h, InitiatingEvent: m.InitiatingEvent,
		Included: m.Included, Omitted: m.Omitted, State: state, Tokens: m.Tokens}
}

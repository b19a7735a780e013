package continuation

import (
	"encoding/json"

	"github.com/continuity-dev/continuity/diag"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// ContinueArgs is continue_session's argument object, the seed's shape plus
// one optional member: Corrects names an edge whose successor is the caller,
// asking for a corrected successor from that edge's predecessor.
type ContinueArgs struct {
	Reason      string    `json:"reason"`
	Title       string    `json:"title"`
	Description string    `json:"description,omitempty"`
	Handoff     Handoff   `json:"handoff"`
	Sources     []Source  `json:"sources"`
	Transfer    *Transfer `json:"transfer,omitempty"`
	Corrects    string    `json:"corrects,omitempty"`
	// DryRun asks for the projection manifest and the budget estimate the
	// call would produce, without creating anything (seed 000, phase 3).
	DryRun bool `json:"dryRun,omitempty"`
}

// Handoff is the agent-authored orientation. It is narrative, never state.
type Handoff struct {
	Purpose          string   `json:"purpose"`
	CurrentRequest   string   `json:"currentRequest"`
	EstablishedFacts []string `json:"establishedFacts,omitempty"`
	Decisions        []string `json:"decisions,omitempty"`
	OpenQuestions    []string `json:"openQuestions,omitempty"`
	NextActions      []string `json:"nextActions,omitempty"`
	Cautions         []string `json:"cautions,omitempty"`
}

// Source is one cited breadcrumb; Kind selects which members apply.
type Source struct {
	Kind        string `json:"kind"`
	SessionID   string `json:"sessionId,omitempty"`
	FromEventID string `json:"fromEventId,omitempty"`
	ToEventID   string `json:"toEventId,omitempty"`
	EventID     string `json:"eventId,omitempty"`
	URL         string `json:"url,omitempty"`
	Version     string `json:"version,omitempty"`
	BlockID     string `json:"blockId,omitempty"`
	Path        string `json:"path,omitempty"`
	CID         string `json:"cid,omitempty"`
	Relevance   string `json:"relevance"`
}

// Transfer is the explicit structured-state transfer.
type Transfer struct {
	Plan            string   `json:"plan,omitempty"`
	PendingRuns     []string `json:"pendingRuns,omitempty"`
	PinnedTools     []string `json:"pinnedTools,omitempty"`
	PinnedResources []string `json:"pinnedResources,omitempty"`
}

// Source kinds.
const (
	KindSessionEvents = "session_events"
	KindSessionEvent  = "session_event"
	KindResource      = "resource"
	KindMemory        = "memory"
)

// span returns a session source's inclusive seq range.
func (s Source) span() (from, to int64) {
	if s.Kind == KindSessionEvent {
		n, _ := parseEventID(s.EventID)
		return n, n
	}
	from, _ = parseEventID(s.FromEventID)
	to, _ = parseEventID(s.ToEventID)
	return from, to
}

func (s Source) isSession() bool { return s.Kind == KindSessionEvents || s.Kind == KindSessionEvent }

// decodeArgs validates raw against the named schema and decodes it into v.
// The schema error names the failing member, never its value.
func decodeArgs(schema string, raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	if err := uicontract.Validate(schema, raw); err != nil {
		return diag.Newf(diag.ContinuityArgumentsInvalid, "%s: %v", schema, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return diag.Newf(diag.ContinuityArgumentsInvalid, "%s: %v", schema, err)
	}
	return nil
}

// parseContinueArgs validates continue_session arguments: the schema first,
// then the rules a schema cannot state (ordered ranges, no runtime-only
// lineage text in anything the model wrote).
func parseContinueArgs(raw json.RawMessage) (ContinueArgs, error) {
	var a ContinueArgs
	if err := decodeArgs("tool/continue_session.args", raw, &a); err != nil {
		return a, err
	}
	if a.Reason == "" || a.Title == "" || a.Handoff.Purpose == "" || a.Sources == nil {
		// Only "projection": "reseed" lets the schema accept these missing;
		// the plugin fills them from the boundary decision before calling.
		return a, diag.New(diag.ContinuityArgumentsInvalid, "tool/continue_session.args: reason, title, handoff and sources are required unless a RESEED projection supplies them")
	}
	for i, s := range a.Sources {
		var err error
		switch s.Kind {
		case KindSessionEvents:
			if from, to := s.span(); from > to {
				err = diag.Newf(diag.ContinuityArgumentsInvalid, "sources/%d: fromEventId is after toEventId", i).With("index", i)
			}
		case KindResource:
			err = checkResourceURL(i, s.URL)
		case KindMemory:
			err = checkMemoryPath(i, s.Path)
		}
		if err != nil {
			return a, err
		}
	}
	for _, t := range a.authoredTexts() {
		// Model-authored text that reads as a lineage tag once folded could
		// impersonate the runtime's block: refused, not escaped.
		if len(forgedLineage(t.text)) > 0 {
			return a, diag.Newf(diag.HandoffInvalid, "%s contains a <session_continuation> block; only the runtime writes lineage", t.where).With("member", t.where)
		}
	}
	return a, nil
}

type authored struct{ where, text string }

// authoredTexts lists every model-written string with its location.
func (a ContinueArgs) authoredTexts() []authored {
	out := []authored{{"title", a.Title}, {"description", a.Description},
		{"handoff/purpose", a.Handoff.Purpose}, {"handoff/currentRequest", a.Handoff.CurrentRequest}}
	lists := map[string][]string{
		"handoff/establishedFacts": a.Handoff.EstablishedFacts, "handoff/decisions": a.Handoff.Decisions,
		"handoff/openQuestions": a.Handoff.OpenQuestions, "handoff/nextActions": a.Handoff.NextActions,
		"handoff/cautions": a.Handoff.Cautions,
	}
	if t := a.Transfer; t != nil {
		lists["transfer/pendingRuns"], lists["transfer/pinnedTools"], lists["transfer/pinnedResources"] =
			t.PendingRuns, t.PinnedTools, t.PinnedResources
	}
	for name, l := range lists {
		for _, s := range l {
			out = append(out, authored{name, s})
		}
	}
	// Every string of a source reaches the successor's context or manifest.
	for _, s := range a.Sources {
		for _, v := range []string{s.Relevance, s.SessionID, s.URL, s.Version, s.BlockID, s.Path, s.CID} {
			out = append(out, authored{"sources", v})
		}
	}
	return out
}

package continuation

import (
	"encoding/json"

	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/wire"
)

// ProjectionFormat names the successor-context document this package writes
// as session/create's context (schema continuation/projection).
const ProjectionFormat = "continuity.projection/1"

// Projection is the successor's first context: ordered sections, each with
// a kind, in the seed's budgeting order. The host renders it for the model.
type Projection struct {
	Format     string    `json:"format"`
	ManifestID string    `json:"manifestId"`
	EdgeID     string    `json:"edgeId"`
	Tokens     TokenCost `json:"tokens"`
	Sections   []Section `json:"sections"`
	// Host is the same context ready for a model: system text and first
	// user message (see HostContext).
	Host HostContext `json:"host"`
}

// Section is one part of a projection. Text is a raw JSON string so that
// the initiating message carries the host's exact token, escapes included.
type Section struct {
	Kind        string          `json:"kind"` // control, lineage, state, initiating_message, handoff, query, source, omitted
	Tier        string          `json:"tier,omitempty"`
	Text        json.RawMessage `json:"text,omitempty"`
	SessionID   string          `json:"sessionId,omitempty"`
	EventID     string          `json:"eventId,omitempty"`
	FromEventID string          `json:"fromEventId,omitempty"`
	ToEventID   string          `json:"toEventId,omitempty"`
	Turn        *int64          `json:"turn,omitempty"`
	Relevance   string          `json:"relevance,omitempty"`
	Reference   *Source         `json:"reference,omitempty"`
	State       []StateItem     `json:"state,omitempty"`
	Handoff     *Handoff        `json:"handoff,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
	Events      []SectionEvent  `json:"events,omitempty"`
	Omitted     []ManifestItem  `json:"omitted,omitempty"`
}

// SectionEvent is one exact host event inside a source section.
type SectionEvent struct {
	EventID string          `json:"eventId"`
	Type    string          `json:"type"`
	Time    json.RawMessage `json:"time,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Source tiers, in budgeting order after the mandatory sections.
const (
	TierPinned  = "pinned"
	TierRecent  = "recent"
	TierExcerpt = "excerpt"
	// TierHistory is the rest of the predecessor: never offered, listed
	// as omitted so every event stays accounted for.
	TierHistory = "history"
)

// compileInput is everything the compiler needs; it reads nothing itself.
type compileInput struct {
	manifestID, edgeID, predecessorID, originID string
	initiating                                  hostapi.Event
	initiatingTurn                              *int64
	handoff                                     Handoff
	query                                       string // a RESEED's verified query, or ""
	state                                       []StateItem
	sources                                     []Source          // the agent's citations, in order
	sourceEvents                                [][]hostapi.Event // events of each session source
	recent, excerpts                            []hostapi.Event   // oldest first
	historySeqs                                 []int64           // every predecessor event seq, in order
	budget                                      int
}

// compiled is the compiler's output: the exact context bytes and the
// manifest's account of them.
type compiled struct {
	context           []byte
	included, omitted []ManifestItem
	tokens            TokenCost
}

func stringToken(s string) json.RawMessage { return json.RawMessage(marshal(s)) }

func sectionEvents(evs []hostapi.Event) []SectionEvent {
	out := make([]SectionEvent, len(evs))
	for i, ev := range evs {
		out[i] = SectionEvent{EventID: eventID(ev.Seq), Type: ev.Type, Time: ev.Time, Data: ev.Data}
	}
	return out
}

// compile fills the context in the seed's order: control, lineage (the
// runtime's identity block), exact state, the initiating message verbatim,
// the handoff — these always, even over budget — then pinned sources,
// recent exchanges and older excerpts while they fit. Whatever does not fit
// is listed as omitted with its reason, both in the manifest and in a final
// section of handles, so it stays reachable through recall.
//
// The list of omitted handles costs tokens too, so it is paid from the
// budget: a compile whose list does not fit is redone with that list's
// cost reserved, until the whole context fits (or only the mandatory
// sections are left, which are over budget by themselves).
func compile(in compileInput) compiled {
	reserve := 0
	for {
		out, listCost := compileWithin(in, in.budget-reserve)
		if !out.tokens.OverBudget || listCost <= reserve || reserve >= in.budget {
			return out
		}
		reserve = listCost
	}
}

// compileWithin fills the context while the optional sections fit in room
// tokens, and reports what the final omitted section cost.
func compileWithin(in compileInput, room int) (compiled, int) {
	var out compiled
	var secs []Section
	used := 0
	add := func(s Section) int {
		t := EstimateTokens(marshal(s))
		secs = append(secs, s)
		used += t
		return t
	}
	add(Section{Kind: "control", Text: stringToken(controlText)})
	add(Section{Kind: "lineage", Text: stringToken(lineageBlock(in.originID, in.predecessorID, in.edgeID, eventID(in.initiating.Seq), in.manifestID))})
	add(Section{Kind: "state", Text: stringToken(stateNote), State: in.state})
	init := Section{Kind: "initiating_message", SessionID: in.predecessorID, EventID: eventID(in.initiating.Seq), Turn: in.initiatingTurn}
	if text, _ := initiatingText(in.initiating.Data); text != nil {
		init.Text = text
	} else {
		init.Data = in.initiating.Data
	}
	add(init)
	h := in.handoff
	add(Section{Kind: "handoff", Handoff: &h})
	if in.query != "" {
		add(Section{Kind: "query", Text: stringToken(in.query)})
	}

	fits := func(t int) bool { return used+t <= room }
	loaded := map[int64]bool{in.initiating.Seq: true} // predecessor events already in the context
	listed := map[int64]bool{}                        // predecessor events a cited source already lists as omitted
	for i, src := range in.sources {
		item := ManifestItem{Tier: TierPinned, Kind: src.Kind, SessionID: src.SessionID, URL: src.URL, Version: src.Version,
			BlockID: src.BlockID, Path: src.Path, CID: src.CID, Relevance: src.Relevance}
		if !src.isSession() {
			s := src
			sec := Section{Kind: "source", Tier: TierPinned, Relevance: src.Relevance, Reference: &s}
			item.Mode, item.Tokens = "reference", EstimateTokens(marshal(sec))
			if fits(item.Tokens) {
				add(sec)
				out.included = append(out.included, item)
			} else {
				item.Mode, item.Reason = "", ReasonBudget
				out.omitted = append(out.omitted, item)
			}
			continue
		}
		base := Section{Kind: "source", Tier: TierPinned, SessionID: src.SessionID, Relevance: src.Relevance}
		inc, rest := takeFitting(base, in.sourceEvents[i], room-used, false)
		if src.SessionID == in.predecessorID {
			for _, ev := range inc {
				loaded[ev.Seq] = true
			}
			for _, ev := range rest {
				listed[ev.Seq] = true
			}
		}
		if len(inc) > 0 {
			t := add(rangeSection(base, inc))
			out.included = append(out.included, rangeItem(item, inc, t, ""))
		}
		if len(rest) > 0 {
			out.omitted = append(out.omitted, rangeItem(item, rest, EstimateTokens(marshal(rangeSection(base, rest))), ReasonBudget))
		}
	}
	for _, tier := range []struct {
		name string
		evs  []hostapi.Event
	}{{TierRecent, in.recent}, {TierExcerpt, in.excerpts}} {
		if len(tier.evs) == 0 {
			continue
		}
		// Candidates are the tier's messages not yet in the context and not
		// already listed as omitted by a cited range: a listed event is
		// accounted for, so it neither blocks a smaller message from fitting
		// nor is listed a second time.
		var open, cands []hostapi.Event
		for _, ev := range tier.evs {
			if loaded[ev.Seq] {
				continue
			}
			open = append(open, ev)
			if !listed[ev.Seq] {
				cands = append(cands, ev)
			}
		}
		if len(cands) == 0 {
			continue
		}
		base := Section{Kind: "source", Tier: tier.name, SessionID: in.predecessorID}
		item := ManifestItem{Tier: tier.name, Kind: KindSessionEvents, SessionID: in.predecessorID}
		inc, rest := takeFitting(base, cands, room-used, true)
		if len(inc) > 0 {
			t := add(rangeSection(base, inc))
			out.included = append(out.included, rangeItem(item, inc, t, ""))
		}
		for _, run := range runsExcept(coldOf(open, rest, listed), listed) {
			out.omitted = append(out.omitted, rangeItem(item, run, EstimateTokens(marshal(rangeSection(base, run))), ReasonBudget))
		}
	}
	out.omitted = append(out.omitted, coldHistory(in, out.included, out.omitted)...)
	listCost := 0
	if len(out.omitted) > 0 {
		listCost = add(Section{Kind: "omitted", Omitted: out.omitted})
	}
	out.tokens = TokenCost{Budget: in.budget, Used: used, Estimator: estimatorName, OverBudget: used > in.budget}
	first := FirstUser{SessionID: in.predecessorID, EventID: eventID(in.initiating.Seq), Turn: in.initiatingTurn}
	if first.Text, first.Content = initiatingText(in.initiating.Data); first.Text == nil && first.Content == nil {
		first.Data = in.initiating.Data
	}
	// The wire sends no HTML escapes; a host token that had them arrives
	// without them, so the stored bytes (and their digest) are those.
	out.context = wire.UnescapeHTML(marshal(Projection{Format: ProjectionFormat, ManifestID: in.manifestID, EdgeID: in.edgeID, Tokens: out.tokens,
		Sections: secs, Host: renderHost(secs, first)}))
	return out, listCost
}

// rangeSection is base with the exact events and their span.
func rangeSection(base Section, evs []hostapi.Event) Section {
	base.FromEventID, base.ToEventID = eventID(evs[0].Seq), eventID(evs[len(evs)-1].Seq)
	base.Events = sectionEvents(evs)
	return base
}

// rangeItem records a contiguous run of events as a manifest item.
func rangeItem(item ManifestItem, evs []hostapi.Event, tokens int, reason string) ManifestItem {
	item.Mode = "exact"
	if len(evs) == 1 && item.Kind == KindSessionEvent {
		item.EventID = eventID(evs[0].Seq)
	} else {
		item.Kind = KindSessionEvents
		item.FromEventID, item.ToEventID = eventID(evs[0].Seq), eventID(evs[len(evs)-1].Seq)
	}
	item.Events, item.Digest, item.Tokens, item.Reason = len(evs), rangeDigest(evs), tokens, reason
	if reason != "" {
		item.Mode = ""
	}
	return item
}

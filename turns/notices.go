package turns

import (
	"sort"
	"strconv"

	"github.com/continuity-dev/continuity/filter"
)

// noticeLifeMs is how long a settled notice stays live (the DSH plugin's 8 s).
const noticeLifeMs = 8000

// maxLiveNotices bounds a session's live notices (the notices Remote value
// allows 256): offers stay until acted on, so without a bound a session with
// many rejections would grow its list forever. The oldest go first.
const maxLiveNotices = 64

// pollMs is the status poll interval clients use while a bracket runs.
const pollMs = 1000

// Notice is one composer notice (ui-contract view/ComposerNotice). It holds
// ids, counts, states and text keys only: never ciphertext or message text.
type Notice struct {
	ID          string          `json:"id"`
	AgentID     string          `json:"agentId"`
	Turn        *int64          `json:"turn"`
	Kind        string          `json:"kind"`
	TextKey     string          `json:"textKey"`
	At          int64           `json:"at"`
	ExpiresAt   *int64          `json:"expiresAt,omitempty"`
	RequestID   string          `json:"requestId,omitempty"`
	Outcome     string          `json:"outcome,omitempty"`
	Filtered    *counts         `json:"filtered,omitempty"`
	Compaction  *CompactionView `json:"compaction,omitempty"`
	Policy      string          `json:"policy,omitempty"`
	Rejection   *RejectionView  `json:"rejection,omitempty"`
	Offer       *Offer          `json:"offer,omitempty"`
	GuidanceKey string          `json:"guidanceKey,omitempty"`
	Code        string          `json:"code,omitempty"`
	// Continuation is a continuationReturn notice's offer (continuation
	// makes it; the notices Remote lists it while its turn lasts).
	Continuation *ContinuationChoice `json:"continuation,omitempty"`
	// Details is the compact enabled disclosure's expansion (seed 003:
	// "Details contain the disable action"), on the notices of a turn
	// that runs with the policy on.
	Details *NoticeDetails `json:"details,omitempty"`
}

// NoticeDetails is what a client shows when the person opens an enabled
// notice: the disclosure's text key and the disable action, which the
// client performs as githubCopilotSessionContinuation.set enabled false.
type NoticeDetails struct {
	DisclosureKey string   `json:"disclosureKey"`
	Actions       []string `json:"actions"`
}

// enabledDetails are the details of every policy-on turn notice.
func enabledDetails() *NoticeDetails {
	return &NoticeDetails{DisclosureKey: "notice.enabled.details", Actions: []string{"disableContinuation"}}
}

// ContinuationChoice names a predecessor's current continuation and what
// the person may do: open it, or branch into another.
type ContinuationChoice struct {
	SuccessorID string   `json:"successorId"`
	EdgeID      string   `json:"edgeId"`
	Choices     []string `json:"choices"`
}

// counts is what was omitted: reasoning items, their ciphertext's UTF-16
// code units, and paired ids removed.
type counts struct {
	Items       int `json:"items"`
	CodeUnits   int `json:"codeUnits"`
	StrippedIDs int `json:"strippedIds"`
}

// add folds one payload's omissions into a turn's: the turn reports the
// largest payload (every step omits the same baseline, so summing would
// count one item once per step).
func (c *counts) add(o filter.Omitted) {
	c.Items = max(c.Items, o.Items)
	c.CodeUnits = max(c.CodeUnits, o.CodeUnits)
	c.StrippedIDs = max(c.StrippedIDs, o.StrippedIDs)
}

// CompactionView is a bracket's public projection: id and phase only.
type CompactionView struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// RejectionView is a classified supplier rejection: kind and item id only.
type RejectionView struct {
	Kind string `json:"kind"`
	Item string `json:"item,omitempty"`
}

// Offer is the loss-disclosed control that saves the persistent policy.
type Offer struct {
	Action        string   `json:"action"`
	TextKey       string   `json:"textKey"`
	DisclosureKey string   `json:"disclosureKey"`
	Choices       []Choice `json:"choices"`
}

// Choice is one button of an offer.
type Choice struct {
	ID      string `json:"id"`
	TextKey string `json:"textKey"`
}

// noticeState is a session's live notices by id, and the latest admitted
// turn (nil before the first), which notices outside a payload carry.
// forTurn holds the ids of notices that apply only while their turn lasts.
type noticeState struct {
	turn    *int64
	live    map[string]Notice
	forTurn map[string]int64
}

// startTurn notes the admitted turn; notices held for an earlier turn no
// longer apply.
func (n *noticeState) startTurn(turn int64) {
	n.turn = &turn
	n.dropHeld(func(t int64) bool { return t < turn })
}

// endTurn drops the notices held for turn (turn/end).
func (n *noticeState) endTurn(turn int64) {
	n.dropHeld(func(t int64) bool { return t <= turn })
}

func (n *noticeState) dropHeld(over func(turn int64) bool) {
	for id, t := range n.forTurn {
		if over(t) {
			delete(n.live, id)
			delete(n.forTurn, id)
		}
	}
}

// HoldForTurn lists a notice another feature has already sent (the return
// offer session continuation emits) among the session's live notices, so a client
// that polls the notices Remote sees it too, until its turn ends or a
// later turn is admitted. A notice without a turn is not held.
func (m *Manager) HoldForTurn(sessionID string, x Notice) {
	if x.Turn == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(sessionID)
	if s.notice.turn != nil && *s.notice.turn > *x.Turn {
		return
	}
	s.notice.put(x)
	if s.notice.forTurn == nil {
		s.notice.forTurn = map[string]int64{}
	}
	s.notice.forTurn[x.ID] = *x.Turn
}

// put adds or replaces a notice, dropping the oldest beyond the bound.
func (n *noticeState) put(x Notice) {
	if n.live == nil {
		n.live = map[string]Notice{}
	}
	n.live[x.ID] = x
	for len(n.live) > maxLiveNotices {
		oldest := ""
		for id, y := range n.live {
			if o, ok := n.live[oldest]; !ok || y.At < o.At || y.At == o.At && id < oldest {
				oldest = id
			}
		}
		delete(n.live, oldest)
		delete(n.forTurn, oldest)
	}
}

// current lists the notices still live at now, oldest first.
func (n *noticeState) current(now int64) []Notice {
	out := make([]Notice, 0, len(n.live))
	for id, x := range n.live {
		if x.ExpiresAt != nil && *x.ExpiresAt <= now {
			delete(n.live, id)
			continue
		}
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func turnNoticeID(turn int64) string { return "turn:" + strconv.FormatInt(turn, 10) }

func expires(at int64) *int64 {
	e := at + noticeLifeMs
	return &e
}

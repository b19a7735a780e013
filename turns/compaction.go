package turns

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/rejection"
)

// Compaction bracket states. "unknown" is reported for a bracket this
// process did not see (after a restart): never guessed.
const (
	StateRunning   = "running"
	StateCompleted = "completed"
	StateFailed    = "failed"
	StateCancelled = "cancelled"
	StateBlocked   = "blocked"
	StateUnknown   = "unknown"
)

// Bracket limits (DESIGN.md §2.4).
const (
	maxOpenBrackets = 64
	maxStatuses     = 128
)

// bracket is one compaction, from compaction/start to compaction/end.
type bracket struct {
	id         string
	sessionID  string
	turn       *int64
	state      string
	model      string // pinned by the first summary payload
	policy     *bool  // captured persistent policy; nil until known
	checkpoint bool   // the compact-checkpoint user/message arrived
	counts     counts
	revoked    string
}

// brackets holds a session's open brackets and its last settled statuses.
type brackets struct {
	open     map[string]*bracket
	settled  []*bracket // oldest first, at most maxStatuses
	refused  []string   // ids refused because too many were open
	latestID string
}

func newBrackets() *brackets { return &brackets{open: map[string]*bracket{}} }

func (b *brackets) find(id string) *bracket {
	if br := b.open[id]; br != nil {
		return br
	}
	for i := len(b.settled) - 1; i >= 0; i-- {
		if b.settled[i].id == id {
			return b.settled[i]
		}
	}
	return nil
}

// status returns a bracket's state, or unknown for one not seen.
func (b *brackets) status(id string) string {
	if br := b.find(id); br != nil {
		return br.state
	}
	return StateUnknown
}

func (b *brackets) latest() (id, state string, ok bool) {
	if b.latestID == "" {
		return "", "", false
	}
	return b.latestID, b.status(b.latestID), true
}

func (b *brackets) settle(br *bracket, state string) {
	br.state = state
	delete(b.open, br.id)
	b.settled = append(b.settled, br)
	if len(b.settled) > maxStatuses {
		b.settled = b.settled[len(b.settled)-maxStatuses:]
	}
}

func (b *brackets) revokeAll() {
	for _, br := range b.open {
		br.revoked = "the agent was disposed"
	}
}

type compactionData struct {
	CompactionID string          `json:"compactionId"`
	Turn         *int64          `json:"turn"`
	Error        json.RawMessage `json:"error"`
	Source       *struct {
		Kind         string `json:"kind"`
		CompactionID string `json:"compactionId"`
	} `json:"source"`
}

// observeCompactionLocked applies compaction/start|summary|end and the
// checkpoint user/message.
func (m *Manager) observeCompactionLocked(s *session, ev hostapi.Event) {
	var d compactionData
	if json.Unmarshal(ev.Data, &d) != nil {
		return
	}
	b := s.comp
	switch ev.Type {
	case "compaction/start":
		if d.CompactionID == "" || b.find(d.CompactionID) != nil {
			return
		}
		if len(b.open) >= maxOpenBrackets {
			b.refused = append(b.refused, d.CompactionID)
			if len(b.refused) > maxStatuses {
				b.refused = b.refused[1:]
			}
			return
		}
		br := &bracket{id: d.CompactionID, sessionID: s.id, turn: d.Turn, state: StateRunning}
		if a := s.current; d.Turn != nil && a != nil && a.turn == *d.Turn && a.revokedErr() == nil {
			// Inside an active turn the summary runs under the turn's
			// captured persistent policy; one-turn consent never covers it.
			p := a.persistent
			br.policy = &p
		}
		b.open[br.id] = br
		b.latestID = br.id
		m.compactionNoticeLocked(s, br)
	case "user/message":
		if d.Source == nil || d.Source.Kind != "compact-checkpoint" {
			return
		}
		if br := b.open[d.Source.CompactionID]; br != nil {
			br.checkpoint = true
		}
	case "compaction/end":
		br := b.open[d.CompactionID]
		if br == nil {
			return
		}
		b.settle(br, outcome(br, d.Error))
		m.compactionNoticeLocked(s, br)
	}
}

// outcome decides a bracket's end state: completed needs the checkpoint and
// no error; a cancellation stays distinct from a failure; a replay-scope
// rejection while the policy was off is blocked (enabling would help).
func outcome(br *bracket, errRaw json.RawMessage) string {
	if len(errRaw) == 0 || string(errRaw) == "null" {
		if br.checkpoint {
			return StateCompleted
		}
		return StateFailed
	}
	text := errorText(errRaw)
	lower := strings.ToLower(text)
	if strings.Contains(lower, "cancel") || strings.Contains(lower, "abort") {
		return StateCancelled
	}
	off := br.policy == nil || !*br.policy
	if off && rejection.Classify(400, text).ReplayScope() {
		return StateBlocked
	}
	return StateFailed
}

// errorText reads a compaction/end error given as a string or as an object
// with message/name/code members (or any other JSON, used whole).
func errorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Name    string `json:"name"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil && (o.Message != "" || o.Name != "" || o.Code != "") {
		return o.Name + " " + o.Code + " " + o.Message
	}
	return string(raw)
}

// compactionPayload filters one summary payload of an open bracket. Every
// segment gets a fresh baseline, so all historical encrypted reasoning is
// omitted while visible checkpoints remain.
func (m *Manager) compactionPayload(ctx context.Context, req PayloadRequest, payload []byte) (PayloadResult, error) {
	if req.CompactionID == "" {
		return PayloadResult{}, diag.New(diag.CompactionScopeUnavailable, "a compaction payload needs a compactionId")
	}
	m.mu.Lock()
	br, refused := m.bracketLocked(req.SessionID, req.CompactionID)
	var snap bracket
	if br != nil {
		snap = *br
	}
	m.mu.Unlock()
	switch {
	case br == nil && refused:
		return PayloadResult{}, diag.Newf(diag.CompactionLimit, "more than %d compactions were open", maxOpenBrackets)
	case br == nil:
		return PayloadResult{}, diag.Newf(diag.CompactionBoundaryUnavailable, "no open compaction %s was seen", req.CompactionID)
	case snap.sessionID != req.SessionID:
		return PayloadResult{}, diag.Newf(diag.CompactionScopeMismatch, "compaction %s belongs to another agent", req.CompactionID)
	case snap.state != StateRunning:
		return PayloadResult{}, diag.Newf(diag.CompactionBoundaryUnavailable, "compaction %s has ended", req.CompactionID)
	case snap.revoked != "":
		return PayloadResult{}, diag.New(diag.Revoked, snap.revoked)
	case snap.turn != nil && *snap.turn != req.Turn:
		return PayloadResult{}, diag.Newf(diag.CompactionScopeMismatch, "compaction %s belongs to turn %d", req.CompactionID, *snap.turn)
	}
	ag, err := m.opt.Agents.Get(ctx, req.SessionID)
	if err != nil {
		return PayloadResult{}, diag.Newf(diag.CompactionAgentUnavailable, "the agent of compaction %s could not be looked up", req.CompactionID)
	}
	m.mu.Lock()
	if br.model == "" {
		br.model = req.Model
	}
	pinned, policy := br.model, br.policy
	m.mu.Unlock()
	if pinned != req.Model {
		return PayloadResult{}, diag.Newf(diag.CompactionModelChanged, "compaction %s is pinned to another model", req.CompactionID)
	}
	if policy == nil {
		// An idle manual compaction reads the current session policy (not
		// one-turn consent, which never authorizes a summary).
		res, err := m.opt.Policy.Resolve(ctx, req.SessionID, ag.Header)
		if err != nil {
			return PayloadResult{}, err
		}
		on := res.Enabled
		m.mu.Lock()
		if br.policy == nil {
			br.policy = &on
		}
		policy = br.policy
		m.mu.Unlock()
	}
	if !*policy {
		return m.nativeResult(req, payload), nil
	}
	revoked := func() error {
		m.mu.Lock()
		defer m.mu.Unlock()
		if br.revoked != "" {
			return diag.New(diag.Revoked, br.revoked)
		}
		if br.state != StateRunning {
			return diag.Newf(diag.Revoked, "compaction %s ended", br.id)
		}
		return nil
	}
	seg := filter.NewTurn(filter.Options{StripPairedIDs: m.opt.StripPairedIDs, Prevalidated: true})
	res, err := seg.Apply(ctx, payload, revoked)
	if err != nil {
		return PayloadResult{}, err
	}
	out := PayloadResult{Outcome: OutcomeUnchanged, Omitted: res.Omitted, SHA256: res.SHA256}
	if res.Output != nil {
		out.Outcome, out.Output = OutcomeFiltered, res.Output
	}
	m.mu.Lock()
	br.counts.add(res.Omitted)
	if s := m.sessions[req.SessionID]; s != nil {
		m.compactionNoticeLocked(s, br)
	}
	m.mu.Unlock()
	return out, nil
}

// bracketLocked finds the bracket a compaction payload names: in its own
// session first, then in any other (to tell a scope mismatch from a bracket
// never seen); refused says the id was turned away by the open limit.
func (m *Manager) bracketLocked(sessionID, id string) (br *bracket, refused bool) {
	if s := m.sessions[sessionID]; s != nil {
		if br := s.comp.find(id); br != nil {
			return br, false
		}
		for _, r := range s.comp.refused {
			if r == id {
				return nil, true
			}
		}
	}
	for _, s := range m.sessions {
		if br := s.comp.open[id]; br != nil {
			return br, false
		}
	}
	return nil, false
}

package turns

import (
	"encoding/json"
	"strings"

	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/rejection"
)

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
// checkpoint user/message. compaction/summary changes nothing: summary text
// alone never settles a bracket, only the checkpoint and an error-free end.
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
			b.refuse(d.CompactionID)
			return
		}
		br := &bracket{id: d.CompactionID, sessionID: s.id, turn: d.Turn, state: StateRunning}
		m.capturePolicyLocked(s, br)
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
		if d.CompactionID == "" {
			return
		}
		if b.wasRefused(d.CompactionID) {
			b.unrefuse(d.CompactionID)
			return
		}
		br := b.open[d.CompactionID]
		if br == nil {
			if b.find(d.CompactionID) != nil {
				return // ended twice: the first end stands
			}
			// Its start was never seen (the plugin restarted inside
			// it): the outcome is unknown, never guessed.
			br = &bracket{id: d.CompactionID, sessionID: s.id, turn: d.Turn}
			b.settle(br, StateUnknown)
			b.latestID = br.id
			m.compactionNoticeLocked(s, br)
			return
		}
		b.settle(br, outcome(br, d.Error))
		m.compactionNoticeLocked(s, br)
	}
}

// capturePolicyLocked gives a turn's bracket the captured persistent policy
// of that turn's admission (one-turn consent never covers a summary). An
// idle manual bracket (turn null) is left to its first summary payload,
// which reads the current session policy.
func (m *Manager) capturePolicyLocked(s *session, br *bracket) {
	if br.policy != nil || br.turn == nil {
		return
	}
	if a := s.current; a != nil && a.turn == *br.turn {
		p := a.persistent
		br.policy = &p
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
	e := readEndError(errRaw)
	if v := rejection.Classify(e.status, e.body); v.Rejected() {
		if v.ReplayScope() && (br.policy == nil || !*br.policy) {
			return StateBlocked
		}
		return StateFailed
	}
	lower := strings.ToLower(e.summary)
	if strings.Contains(lower, "cancel") || strings.Contains(lower, "abort") {
		return StateCancelled
	}
	return StateFailed
}

// endError is a compaction/end error as outcome reads it: the whole error
// as the classifier's body, its name/code/message for telling a
// cancellation, and the status (400 unless the error carries one: a
// supplier's rejection of the summary request is a client error).
type endError struct {
	body, summary string
	status        int
}

// readEndError reads an error given as a string or as an object (any
// members; name, code, message and status are looked at).
func readEndError(raw json.RawMessage) endError {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return endError{body: s, summary: s, status: 400}
	}
	e := endError{body: string(raw), summary: string(raw), status: 400}
	var o struct {
		Name    string `json:"name"`
		Code    any    `json:"code"`
		Message string `json:"message"`
		Status  int    `json:"status"`
	}
	if json.Unmarshal(raw, &o) == nil {
		if o.Status != 0 {
			e.status = o.Status
		}
		code, _ := o.Code.(string)
		e.summary = o.Name + " " + code + " " + o.Message
	}
	return e
}

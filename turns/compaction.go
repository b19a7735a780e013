package turns

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/dshevent"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/rejection"
)

// compactionData is what a bracket reads of a compaction event: the
// members are read with gjson from the event's bytes, so a checkpoint
// message's content is never decoded.
type compactionData struct {
	id    string
	turn  *int64
	error json.RawMessage
}

// readCompaction reads compactionId, turn (an integer, or null between
// turns) and error of a compaction/* event.
func readCompaction(data []byte) (compactionData, string) {
	var d compactionData
	id := gjson.GetBytes(data, "compactionId")
	if id.Type != gjson.String || id.Str == "" {
		return d, "data.compactionId is not a non-empty string"
	}
	d.id = id.Str
	n, present, ok := dshevent.Turn(data)
	switch {
	case present && ok:
		d.turn = &n
	case gjson.GetBytes(data, "turn").Exists() && !ok:
		return d, "data.turn is neither an integer nor null"
	}
	if e := gjson.GetBytes(data, "error"); e.Exists() {
		d.error = json.RawMessage(e.Raw)
	}
	return d, ""
}

// observeCompactionLocked applies compaction/start|summary|end and the
// checkpoint user/message. compaction/summary changes nothing: summary text
// alone never settles a bracket, only the checkpoint and an error-free end.
func (m *Manager) observeCompactionLocked(s *session, se hostapi.SessionEvent) {
	ev := se.Event
	b := s.comp
	if ev.Type == "user/message" {
		if id := dshevent.CheckpointOf(ev.Data); id != "" {
			if br := b.open[id]; br != nil {
				br.checkpoint = true
			}
		}
		return
	}
	d, bad := readCompaction(ev.Data)
	if bad != "" {
		m.skipped(se, ev.Type+": "+bad)
		return
	}
	switch ev.Type {
	case "compaction/start":
		if b.find(d.id) != nil {
			return
		}
		if len(b.open) >= maxOpenBrackets {
			b.refuse(d.id)
			return
		}
		br := &bracket{id: d.id, sessionID: s.id, turn: d.turn, state: StateRunning}
		m.spendOnceLocked(s, br)
		m.capturePolicyLocked(s, br)
		b.open[br.id] = br
		b.latestID = br.id
		m.compactionNoticeLocked(s, br)
	case "compaction/end":
		if b.wasRefused(d.id) {
			b.unrefuse(d.id)
			return
		}
		br := b.open[d.id]
		if br == nil {
			if b.find(d.id) != nil {
				return // ended twice: the first end stands
			}
			// Its start was never seen (the plugin restarted inside
			// it): the outcome is unknown, never guessed.
			br = &bracket{id: d.id, sessionID: s.id, turn: d.turn}
			b.settle(br, StateUnknown)
			b.latestID = br.id
			m.compactionNoticeLocked(s, br)
			return
		}
		b.settle(br, outcome(br, d.error))
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

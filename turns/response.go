package turns

import (
	"github.com/continuity-dev/continuity/rejection"
)

// Response handles llm/response: a 408 makes the request's recorded bytes
// available to an exact retry; a replay rejection tells the user — with the
// enable offer when the turn ran with the policy off, with guidance when it
// was on, and with guidance only for a pairing rejection (enabling does not
// fix those). Unrelated failures offer nothing, and nothing is re-sent.
// Status 0 (a transport error frame without HTTP status, such as Copilot's
// WebSocket errors) is classified by its body like any other.
func (m *Manager) Response(requestID string, status int, errorBody string) {
	if status == 408 {
		m.timedOut(requestID)
	}
	if errorBody == "" || status >= 200 && status < 400 {
		return
	}
	a := m.bound(requestID)
	if a == nil {
		return
	}
	v := rejection.Classify(status, errorBody)
	if !v.Rejected() {
		return
	}
	now := m.nowMs()
	turn := a.turn
	n := Notice{ID: "replay:" + requestID, AgentID: a.sessionID, Turn: &turn, Kind: "replayRejected", At: now,
		RequestID: requestID, Rejection: &RejectionView{Kind: string(v.Kind), Item: v.Item}, Policy: "off"}
	if a.enabled {
		n.Policy = "on"
	}
	switch {
	case !v.ReplayScope():
		n.TextKey, n.GuidanceKey = "replay.rejected", "replay.guidance.pairing"
	case a.enabled:
		n.TextKey, n.GuidanceKey = "replay.rejectedWhileOn", "replay.guidance.on"
	default:
		n.TextKey, n.Offer = "offer.enable.body", enableOffer()
	}
	m.publish(a.sessionID, n)
}

// NoticesView is the continuity.notices Remote value.
type NoticesView struct {
	AgentID string   `json:"agentId"`
	Notices []Notice `json:"notices"`
	PollMs  *int     `json:"pollMs"`
}

// Notices returns a session's live notices; pollMs is set only while one of
// its compaction brackets runs.
func (m *Manager) Notices(sessionID string) NoticesView {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := NoticesView{AgentID: sessionID, Notices: []Notice{}}
	s := m.sessions[sessionID]
	if s == nil {
		return v
	}
	v.Notices = s.notice.current(m.nowMs())
	if len(s.comp.open) > 0 {
		p := pollMs
		v.PollMs = &p
	}
	return v
}

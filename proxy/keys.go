package proxy

import (
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// codexTurnHeader is Codex's per-request turn metadata: a JSON object with
// session_id, thread_id, turn_id (the same across the tool steps of one
// turn), request_kind and history_initialization.
const codexTurnHeader = "X-Codex-Turn-Metadata"

// requestKeys is what the proxy reads from one request to place it: the
// session, the turn signal, and who is asking. The body is scanned — by
// the filter's own scan when it follows the body (shapeKeys), else by
// scanBody — never decoded; input items are looked at by type and role
// only.
type requestKeys struct {
	session string // "" means: pass through natively
	// byHeader: only a session header (sessionHeaders) named the session.
	byHeader bool
	history  bool   // the input continues a conversation (bodyKeys.history)
	client   string // the client's name, for the page
	// turnID is the client's own turn id (Codex), "" when it sends none.
	turnID string
	// initiator is pi-ai's x-initiator: "user" starts a turn, "agent" is a step.
	initiator string
	users     int  // user messages in input
	lastUser  bool // the last input item is a user message
	lastTool  bool // the last input item is a tool result (a step of the current turn)
}

// sessionHeaders name a request's session when neither the body's
// prompt_cache_key nor Codex's turn metadata does, first present wins:
// Codex's thread-id and session-id (the thread), opencode's x-session-id
// and x-session-affinity (its ses_ id, also on its title requests), and
// pi-ai's session_id.
var sessionHeaders = []string{"Thread-Id", "Session-Id", "X-Session-Id", "X-Session-Affinity", "Session_id"}

// readKeys places a request from its headers and body; a body the scan
// cannot follow is errShape.
func readKeys(h http.Header, body []byte) (requestKeys, error) {
	bk, err := scanBody(body)
	if err != nil {
		return requestKeys{}, err
	}
	return placeKeys(h, bk), nil
}

// placeKeys places a request from its headers and what its body says
// (scanBody, or shapeKeys when the filter has scanned it). The session is,
// in this order: the body's prompt_cache_key; the thread_id, else
// session_id, of Codex's turn metadata; the first of sessionHeaders; used
// through SessionID, so an odd or long key is bounded here, before anything
// stores or logs it.
func placeKeys(h http.Header, bk bodyKeys) requestKeys {
	k := requestKeys{client: clientOf(h), initiator: h.Get("X-Initiator")}
	meta := h.Get(codexTurnHeader)
	if meta != "" && gjson.Valid(meta) {
		m := gjson.Parse(meta)
		k.turnID = m.Get("turn_id").String()
		k.session = m.Get("thread_id").String()
		if k.session == "" {
			k.session = m.Get("session_id").String()
		}
	}
	if bk.session != "" {
		k.session = bk.session
	}
	for _, name := range sessionHeaders {
		if k.session != "" {
			break
		}
		k.session, k.byHeader = h.Get(name), true
	}
	k.session = SessionID(k.session)
	k.byHeader = k.byHeader && k.session != ""
	k.users, k.lastUser, k.lastTool, k.history = bk.users, bk.lastUser, bk.lastTool, bk.history
	return k
}

// side reports a request that names its session by a header only and
// continues no conversation: opencode's title request, a summary. It has
// nothing to omit and is no turn of the session, so it passes unchanged;
// its account and what its answer issues are still recorded.
func (k requestKeys) side() bool { return k.byHeader && !k.history }

// clientName names the client for the status page: Codex's originator, else
// the first product of the User-Agent, at most 40 bytes of it.
func clientName(h http.Header) string {
	name := h.Get("Originator")
	if name == "" {
		name, _, _ = strings.Cut(h.Get("User-Agent"), " ")
	}
	if len(name) > 40 {
		name = name[:40]
	}
	return name
}

// newTurn decides whether a request starts a turn of a session whose last
// request counted users user messages under the client turn id lastTurn.
// The client's own turn id wins; then pi-ai's initiator; then the shape of
// the input: a tool result is a step of the current turn, a trailing user
// message that added to the count starts one.
func (k requestKeys) newTurn(lastTurn string, users int, first bool) bool {
	switch {
	case first:
		return true
	case k.turnID != "":
		return k.turnID != lastTurn
	case k.initiator == "user":
		return true
	case k.initiator == "agent", k.lastTool:
		return false
	}
	return k.lastUser && k.users > users
}

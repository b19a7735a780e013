package proxy

import (
	"net/http"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// codexTurnHeader is Codex's per-request turn metadata: a JSON object with
// session_id, thread_id, turn_id (the same across the tool steps of one
// turn), request_kind and history_initialization.
const codexTurnHeader = "X-Codex-Turn-Metadata"

// requestKeys is what the proxy reads from one request to place it: the
// session, the turn signal, and who is asking. The body is scanned (gjson),
// never decoded; input items are looked at by type and role only.
type requestKeys struct {
	session string // "" means: pass through natively
	client  string // the client's name, for the page
	// turnID is the client's own turn id (Codex), "" when it sends none.
	turnID string
	// initiator is pi-ai's x-initiator: "user" starts a turn, "agent" is a step.
	initiator string
	users     int  // user messages in input
	lastUser  bool // the last input item is a user message
	lastTool  bool // the last input item is a tool result (a step of the current turn)
}

// readKeys places a request from its headers and body.
func readKeys(h http.Header, body []byte) requestKeys {
	k := requestKeys{client: clientName(h), initiator: h.Get("X-Initiator")}
	meta := h.Get(codexTurnHeader)
	if meta != "" && gjson.Valid(meta) {
		m := gjson.Parse(meta)
		k.turnID = m.Get("turn_id").String()
		k.session = m.Get("thread_id").String()
		if k.session == "" {
			k.session = m.Get("session_id").String()
		}
	}
	// The body is viewed as a string without a copy: gjson's []byte entry
	// points copy what they return, which for input is the whole history.
	// Nothing here keeps a reference once readKeys returns, except the
	// session key, which is copied.
	doc := unsafe.String(unsafe.SliceData(body), len(body))
	if key := gjson.Get(doc, "prompt_cache_key"); key.Type == gjson.String && key.Str != "" {
		k.session = strings.Clone(key.Str)
	}
	input := gjson.Get(doc, "input")
	var last gjson.Result
	input.ForEach(func(_, it gjson.Result) bool {
		if user(it) {
			k.users++
		}
		last = it
		return true
	})
	if last.Exists() {
		k.lastUser = user(last)
		switch last.Get("type").Str {
		case "function_call_output", "custom_tool_call_output":
			k.lastTool = true
		}
	}
	return k
}

// user reports whether an input item is a user message (typed or bare).
func user(it gjson.Result) bool {
	t := it.Get("type").Str
	return (t == "" || t == "message") && it.Get("role").Str == "user"
}

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

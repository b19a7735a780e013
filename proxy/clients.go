package proxy

import (
	"net/http"
	"strings"
)

// clientOf names the client of a request in words for the page and the
// policy command: Codex (its originator header), opencode (its
// User-Agent), pi (pi-ai's openai-codex provider sends originator "pi";
// its openai-responses provider goes through the OpenAI SDK, whose
// User-Agent is "OpenAI/JS …", and sends the session as
// x-client-request-id, which a bare SDK client does not), else the raw
// name clientName gives.
func clientOf(h http.Header) string {
	origin := strings.ToLower(h.Get("Originator"))
	ua := strings.ToLower(h.Get("User-Agent"))
	switch {
	case strings.HasPrefix(origin, "codex"):
		return "Codex"
	case origin == "pi":
		return "pi"
	case strings.HasPrefix(ua, "opencode"):
		return "opencode"
	case strings.HasPrefix(ua, "openai/js") && h.Get("X-Client-Request-Id") != "":
		return "pi"
	}
	return clientName(h)
}

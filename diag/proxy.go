package diag

// Codes of `continuity proxy`'s own HTTP error answers, in the OpenAI
// error envelope's code (docs/protocol.md §11, whose table of codes a
// ui-contract test holds to these and to schemas/codes/proxy.json). The
// proxy also answers the §7 codes its filter and ledger report
// (COPILOT_CONTINUATION_INVALID_PAYLOAD, …_STORAGE_UNAVAILABLE); those are
// the plugin's and are registered with it.
const (
	// ProxyRequestTooLarge: the body, as sent or decompressed, is over the
	// proxy's limits or alone over the body budget (413).
	ProxyRequestTooLarge = "REQUEST_TOO_LARGE"
	// ProxyRequestUnreadable: the body could not be read (400).
	ProxyRequestUnreadable = "REQUEST_UNREADABLE"
	// ProxyRequestUndecodable: the body does not decompress by its
	// Content-Encoding (400).
	ProxyRequestUndecodable = "REQUEST_UNDECODABLE"
	// ProxyResponsesPathRefused: a path an upstream may take for the
	// Responses endpoint that the proxy does not filter (400).
	ProxyResponsesPathRefused = "RESPONSES_PATH_REFUSED"
	// ProxyUnknownUpstream: no upstream is served under the path (404).
	ProxyUnknownUpstream = "UNKNOWN_UPSTREAM"
	// ProxyBodyTooSlow: the request's body arrived slower than the
	// proxy's minimum rate (408).
	ProxyBodyTooSlow = "REQUEST_BODY_TOO_SLOW"
	// ProxyBodyBudgetExhausted: the request's body did not fit in the
	// proxy's body budget within the wait (503, with Retry-After).
	ProxyBodyBudgetExhausted = "BODY_BUDGET_EXHAUSTED"
	// ProxyPolicyUnavailable: the session policy could not be read or
	// written and the store named no code of its own (500, or 409 on the
	// page API).
	ProxyPolicyUnavailable = "POLICY_UNAVAILABLE"
	// ProxyUpstreamUnreachable: the upstream could not be reached or
	// failed before answering (502).
	ProxyUpstreamUnreachable = "UPSTREAM_UNREACHABLE"
	// ProxyUpstreamTimeout: the upstream did not answer in time (504).
	ProxyUpstreamTimeout = "UPSTREAM_TIMEOUT"
	// ProxyInternal: the proxy failed at something that should not fail,
	// such as compressing a filtered body again (500).
	ProxyInternal = "INTERNAL"
	// ProxyTextMissing: the status page's texts are missing a key for the
	// locale (500).
	ProxyTextMissing = "TEXT_MISSING"
	// ProxyNotFound: no page API under that path and method (404).
	ProxyNotFound = "NOT_FOUND"
	// ProxyPageForbidden: the page API's guard refused the request (403).
	ProxyPageForbidden = "PAGE_FORBIDDEN"
	// ProxyBadRequest: a page API body that is not the expected JSON
	// (400).
	ProxyBadRequest = "BAD_REQUEST"
	// ProxyUnknownSession: a page API change names a session no proxy on
	// the data directory has seen (404); `continuity policy` exits 2 with
	// it too.
	ProxyUnknownSession = "UNKNOWN_SESSION"
)

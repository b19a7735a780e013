package diag

// Codes of `continuity proxy`'s own HTTP error answers, in the OpenAI
// error envelope's code (docs/protocol.md §11).
const (
	// ProxyBodyBudgetExhausted: the request's body did not fit in the
	// proxy's body budget within the wait (503, with Retry-After).
	ProxyBodyBudgetExhausted = "BODY_BUDGET_EXHAUSTED"
	// ProxyBodyTooSlow: the request's body arrived slower than the
	// proxy's minimum rate (408).
	ProxyBodyTooSlow = "REQUEST_BODY_TOO_SLOW"
)

package remote

import (
	"sync"

	"github.com/continuity-dev/continuity/diag"
)

// MaxConsents bounds the legacy one-turn consents waiting at once.
const MaxConsents = 2048

// Consent holds legacy one-turn consents (the authorizeNext Remote method,
// kept for compatibility): each authorizes only the next admitted turn of
// one session. They live in memory on purpose — a restart loses them, so a
// consent can never outlive the process that showed its disclosure — and
// are never written to settings. Safe for concurrent use.
type Consent struct {
	mu      sync.Mutex
	pending map[string]struct{}
}

// NewConsent returns an empty consent set.
func NewConsent() *Consent { return &Consent{pending: map[string]struct{}{}} }

// Authorize records a consent for sessionID's next turn. Re-authorizing is
// a no-op; a 2,049th distinct session is CONSENT_LIMIT.
func (c *Consent) Authorize(sessionID string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[sessionID]; ok {
		return nil
	}
	if len(c.pending) >= MaxConsents {
		return diag.Newf(diag.ConsentLimit, "%d one-turn consents are already waiting", MaxConsents).With("limit", MaxConsents)
	}
	c.pending[sessionID] = struct{}{}
	return nil
}

// Revoke withdraws sessionID's consent, if any.
func (c *Consent) Revoke(sessionID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, sessionID)
}

// Authorized reports whether a consent waits for sessionID's next turn.
func (c *Consent) Authorized(sessionID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[sessionID]
	return ok
}

// Consume takes sessionID's consent for the turn being admitted and
// reports whether there was one. Turn admission calls it exactly once per
// admitted turn, so a consent covers one turn and no more.
func (c *Consent) Consume(sessionID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[sessionID]
	delete(c.pending, sessionID)
	return ok
}

package proxy

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/settings"
)

// Rule is an omission rule.
type Rule string

// The omission rules.
const (
	// RuleProvenance omits reasoning and compaction items issued to another
	// account than the request's, and those of unknown issuer once the
	// session was seen with more than one account.
	RuleProvenance Rule = "provenance"
	// RuleTurn is the plugin's rule: a turn omits all encrypted reasoning
	// present at its first request and keeps what the turn itself made.
	RuleTurn Rule = "turn"
)

// Config configures a Proxy.
type Config struct {
	// Upstream is the supplier's base URL; a request for PATH goes to
	// Upstream + PATH.
	Upstream *url.URL
	// Policy is the session policy store.
	Policy *settings.Policy
	// DB is the data directory's continuity.db (sqlstore.Open): the
	// provenance ledger lives there, so a restart or a second proxy on the
	// same directory knows who issued each item and which accounts each
	// session used.
	DB *sql.DB
	// Rule is the omission rule; "" means RuleProvenance.
	Rule Rule
	// Secret guards the status page's API; it must be at least 16 bytes.
	Secret string
	// Transport sends upstream requests; nil means a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
	// Log receives one line per filtered request, rejection and hint; nil
	// means no logging. It never receives credentials, ciphertext or text.
	Log *zap.Logger
	// PolicyCommand is how the hint names the policy command, e.g.
	// "continuity policy --data-dir /x"; "" means "continuity policy".
	PolicyCommand string
	// PageURL is the status page's address as printed at start (without
	// the secret), for the hint; "" leaves the page out of the hint.
	PageURL string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Limits bound connections and the request bodies held at once.
	Limits Limits
}

// Configuration errors.
var (
	ErrUpstream = errors.New("proxy: upstream must be an absolute http or https URL")
	ErrPolicy   = errors.New("proxy: no policy store")
	ErrDB       = errors.New("proxy: no database for the provenance ledger")
	ErrRule     = errors.New("proxy: unknown rule")
	ErrSecret   = errors.New("proxy: secret too short")
)

// check validates c and fills defaults into a copy.
func (c Config) check() (Config, error) {
	if c.Upstream == nil || (c.Upstream.Scheme != "http" && c.Upstream.Scheme != "https") || c.Upstream.Host == "" {
		return c, ErrUpstream
	}
	if c.Policy == nil {
		return c, ErrPolicy
	}
	if c.DB == nil {
		return c, ErrDB
	}
	switch c.Rule {
	case "":
		c.Rule = RuleProvenance
	case RuleProvenance, RuleTurn:
	default:
		return c, fmt.Errorf("%w %q (provenance or turn)", ErrRule, c.Rule)
	}
	if len(c.Secret) < 16 {
		return c, ErrSecret
	}
	if c.Transport == nil {
		c.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	if c.Log == nil {
		c.Log = zap.NewNop()
	}
	if c.PolicyCommand == "" {
		c.PolicyCommand = "continuity policy"
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	var err error
	c.Limits, err = c.Limits.withDefaults()
	return c, err
}

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
	// RuleProvenance keeps the reasoning and compaction items recorded as
	// issued to the request's upstream and account and omits the others:
	// those issued to another, and those of unknown issuer.
	RuleProvenance Rule = "provenance"
	// RuleTurn is the plugin's rule: a turn omits all encrypted reasoning
	// present at its first request and keeps what the turn itself made.
	RuleTurn Rule = "turn"
)

// Config configures a Proxy.
type Config struct {
	// Upstream is the supplier's base URL served at the root; a request for
	// PATH goes to Upstream + PATH. nil when only named upstreams are served.
	Upstream *url.URL
	// Upstreams are named suppliers, each served under /NAME/…: a client
	// moved from one to another changes only its base URL, and the proxy
	// sees the boundary (an item's issuer is the upstream and the account).
	Upstreams []Upstream
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
	// Transport sends upstream requests; nil means UpstreamTransport().
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
	// PageCommand is how the hint names the command that prints the page's
	// address with its key; "" means "continuity page".
	PageCommand string
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
	// ErrUpstreamName is a named upstream's name that cannot be a path
	// prefix of its own.
	ErrUpstreamName = errors.New("proxy: bad upstream name")
)

// validUpstreamURL reports an absolute http or https URL.
func validUpstreamURL(u *url.URL) bool {
	return (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// ValidUpstreamName reports whether name can prefix a named upstream's
// paths: 1 to 32 of a-z, 0-9, '-' and '_', starting with a letter or
// digit, and not "continuity" (the page's API lives under /continuity/).
func ValidUpstreamName(name string) bool {
	if name == "" || len(name) > 32 || name == "continuity" {
		return false
	}
	for i, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || i > 0 && (c == '-' || c == '_')) {
			return false
		}
	}
	return true
}

// check validates c and fills defaults into a copy.
func (c Config) check() (Config, error) {
	if c.Upstream == nil && len(c.Upstreams) == 0 || c.Upstream != nil && !validUpstreamURL(c.Upstream) {
		return c, ErrUpstream
	}
	names := map[string]bool{}
	for _, u := range c.Upstreams {
		switch {
		case u.URL == nil || !validUpstreamURL(u.URL):
			return c, fmt.Errorf("%w (upstream %q)", ErrUpstream, u.Name)
		case !ValidUpstreamName(u.Name):
			return c, fmt.Errorf("%w %q: 1 to 32 of a-z, 0-9, - and _, starting with a letter or digit, not \"continuity\"", ErrUpstreamName, u.Name)
		case names[u.Name]:
			return c, fmt.Errorf("%w %q: named twice", ErrUpstreamName, u.Name)
		}
		names[u.Name] = true
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
		c.Transport = UpstreamTransport()
	}
	if c.Log == nil {
		c.Log = zap.NewNop()
	}
	if c.PageCommand == "" {
		c.PageCommand = "continuity page"
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

// upstreamWriteBuffer is the upstream connection's write buffer. A filtered
// body reaches the transport 32 KiB at a time (the copy ReverseProxy does);
// net/http's 4 KiB default would send each chunk as a 4 KiB write and a
// 28 KiB one, twice the syscalls of a 16 MiB body.
const upstreamWriteBuffer = 64 << 10

// upstreamIdleConns is how many idle connections to one upstream host the
// transport keeps. Every session a user runs talks to the same host, so
// net/http's default of 2 would close all but two of the connections a
// burst of sessions opened as each answer ends, and the next burst would
// dial (and handshake TLS) again in front of its first byte; 16 covers as
// many sessions at once as a busy user runs (copybuf keeps as many buffers).
const upstreamIdleConns = 16

// UpstreamTransport is the transport the proxy sends upstream requests
// with unless told otherwise: http.DefaultTransport's settings (proxy from
// the environment, timeouts, HTTP/2) with a write buffer that takes a
// whole copied chunk, and an idle connection kept for each of as many
// sessions at once as a busy user runs.
func UpstreamTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.WriteBufferSize = upstreamWriteBuffer
	t.MaxIdleConnsPerHost = upstreamIdleConns
	return t
}

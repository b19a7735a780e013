package proxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path"
	"strings"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/settings"
)

// State is what GET /continuity/state answers: the sessions of this run
// with their policy, the new-session default and the rule.
type State struct {
	Rule    string           `json:"rule"`
	Default settings.Default `json:"default"`
	// DefaultScope says which fronts the new-session default governs:
	// "shared", one default for the plugin, pi and every proxy on the data
	// directory (docs/design.md says why).
	DefaultScope string        `json:"defaultScope"`
	Sessions     []SessionView `json:"sessions"`
	// Refused counts API requests refused by the guard in this run.
	Refused int64 `json:"refused"`
}

// DefaultScope is the scope of the new-session default: one row in the
// data directory's settings store, read by every front.
const DefaultScope = "shared"

// sessionChange is the body of POST /continuity/session.
type sessionChange struct {
	Session string `json:"session"`
	Policy  string `json:"policy"` // on, off or default
}

// defaultChange is the body of POST /continuity/default.
type defaultChange struct {
	Enabled *bool `json:"enabled"`
}

// apiRoutes is the page API's router: each route with its method, behind
// the guard (a change is a POST); any other path or method under
// /continuity/ is 404 NOT_FOUND, unguarded, as it reaches no state.
func (p *Proxy) apiRoutes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET "+apiPrefix+"state", p.guarded(false, p.state))
	mux.Handle("POST "+apiPrefix+"session", p.guarded(true, p.setSession))
	mux.Handle("POST "+apiPrefix+"default", p.guarded(true, p.setDefault))
	// GET patterns serve HEAD too; the API never did.
	mux.Handle("HEAD "+apiPrefix+"state", http.HandlerFunc(p.noSuchAPI))
	mux.Handle(apiPrefix, http.HandlerFunc(p.noSuchAPI))
	return mux
}

// api serves the status page's API through apiRoutes. A path the router
// would redirect to its clean form (a dot segment, a doubled slash) is
// answered 404 instead, as before the router: no answer of the API sends
// the client elsewhere.
func (p *Proxy) api(w http.ResponseWriter, r *http.Request) {
	if cleanPath(r.URL.Path) != r.URL.Path {
		p.noSuchAPI(w, r)
		return
	}
	p.apiMux.ServeHTTP(w, r)
}

// cleanPath is the path ServeMux serves without a redirect: path.Clean,
// keeping a trailing slash.
func cleanPath(s string) string {
	c := path.Clean(s)
	if strings.HasSuffix(s, "/") && c != "/" {
		c += "/"
	}
	return c
}

func (p *Proxy) noSuchAPI(w http.ResponseWriter, r *http.Request) {
	p.answerError(w, r, fail(http.StatusNotFound, diag.ProxyNotFound, "continuity proxy: no such page API", nil))
}

// guarded runs route once the guard (guard.go) lets the request through,
// refusing it 403 PAGE_FORBIDDEN (counted in State.Refused) when it does
// not, and answers the Error the route returns.
func (p *Proxy) guarded(change bool, route func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reason, ok := p.guard(r, change); !ok {
			p.refused.Add(1)
			p.answerError(w, r, fail(http.StatusForbidden, diag.ProxyPageForbidden, "continuity proxy: refused: "+reason, nil).
				logs("page request refused", zap.String("reason", reason)))
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if err := route(w, r); err != nil {
			p.answerError(w, r, err)
		}
	})
}

// Snapshot returns the state the page shows.
func (p *Proxy) Snapshot(ctx context.Context) (State, error) {
	def, err := p.cfg.Policy.Defaults(ctx)
	if err != nil {
		return State{}, err
	}
	st := State{Rule: string(p.cfg.Rule), Default: def, DefaultScope: DefaultScope, Sessions: p.sessions.views(), Refused: p.refused.Load()}
	// The sessions of earlier runs, and of other proxies on the data
	// directory, from the ledger: listed without this run's turns.
	rows, err := p.ledger.sessions(ctx, maxSessions)
	if err != nil {
		return State{}, err
	}
	inRun := make(map[string]bool, len(st.Sessions))
	for _, s := range st.Sessions {
		inRun[s.ID] = true
	}
	for _, r := range rows {
		if !inRun[r.session] && len(st.Sessions) < maxSessions {
			st.Sessions = append(st.Sessions, SessionView{ID: r.session, Client: r.client, FirstSeen: r.firstSeen, LastSeen: r.lastSeen,
				Turns: []TurnView{}, Rejections: []RejectionView{}})
		}
	}
	for i := range st.Sessions {
		s := &st.Sessions[i]
		if s.Policy, s.Source, err = applied(ctx, p.cfg.Policy, s.ID, s.FirstSeen); err != nil {
			return State{}, err
		}
	}
	return st, nil
}

func (p *Proxy) state(w http.ResponseWriter, r *http.Request) error {
	st, err := p.Snapshot(r.Context())
	if err != nil {
		return fail(http.StatusInternalServerError, diagCode(err, diag.ProxyPolicyUnavailable), "continuity proxy: "+err.Error(), err)
	}
	return writeJSON(w, st)
}

func (p *Proxy) setSession(w http.ResponseWriter, r *http.Request) error {
	var c sessionChange
	if err := readJSON(r, &c); err != nil {
		return err
	}
	var enabled *bool
	switch c.Policy {
	case "on", "off":
		enabled = new(c.Policy == "on")
	case "default":
	default:
		return fail(http.StatusBadRequest, diag.ProxyBadRequest, `continuity proxy: policy must be "on", "off" or "default"`, nil)
	}
	born, ok := p.sessions.firstSeen(c.Session)
	at := born.UnixMilli()
	if !ok {
		var err error
		if at, ok, err = p.ledger.bornAt(r.Context(), c.Session); err != nil {
			return fail(http.StatusServiceUnavailable, diag.StorageUnavailable, "continuity proxy: "+err.Error(), err)
		}
	}
	if !ok {
		return fail(http.StatusNotFound, diag.ProxyUnknownSession, "continuity proxy: no proxy on this data directory has seen that session", nil)
	}
	if err := SetSession(r.Context(), p.cfg.Policy, c.Session, at, enabled); err != nil {
		return fail(http.StatusConflict, diagCode(err, diag.ProxyPolicyUnavailable), "continuity proxy: "+err.Error(), err)
	}
	p.cfg.Log.Info("session policy changed on the page", zap.String("session", c.Session), zap.String("policy", c.Policy))
	return p.state(w, r)
}

func (p *Proxy) setDefault(w http.ResponseWriter, r *http.Request) error {
	var c defaultChange
	if err := readJSON(r, &c); err != nil {
		return err
	}
	if c.Enabled == nil {
		return fail(http.StatusBadRequest, diag.ProxyBadRequest, "continuity proxy: enabled must be true or false", nil)
	}
	if err := SetDefault(r.Context(), p.cfg.Policy, *c.Enabled); err != nil {
		return fail(http.StatusConflict, diagCode(err, diag.ProxyPolicyUnavailable), "continuity proxy: "+err.Error(), err)
	}
	p.cfg.Log.Info("new-session default changed on the page", zap.Bool("enabled", *c.Enabled))
	return p.state(w, r)
}

// readJSON decodes a small JSON body strictly, the Error 400 BAD_REQUEST
// when it fails.
func readJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fail(http.StatusBadRequest, diag.ProxyBadRequest, "continuity proxy: the request is not the expected JSON: "+err.Error(), err)
	}
	return nil
}

// writeJSON answers v, or returns the Error (nothing written) when it
// does not marshal.
func writeJSON(w http.ResponseWriter, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return internal(err)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
	return nil
}

package proxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

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

// api serves the status page's API.
func (p *Proxy) api(w http.ResponseWriter, r *http.Request) {
	var route func(http.ResponseWriter, *http.Request)
	change := r.Method == http.MethodPost
	switch {
	case r.URL.Path == apiPrefix+"state" && r.Method == http.MethodGet:
		route = p.state
	case r.URL.Path == apiPrefix+"session" && change:
		route = p.setSession
	case r.URL.Path == apiPrefix+"default" && change:
		route = p.setDefault
	default:
		writeError(w, http.StatusNotFound, "NOT_FOUND", "continuity proxy: no such page API")
		return
	}
	if reason, ok := p.guard(r, change); !ok {
		p.refused.Add(1)
		p.cfg.Log.Warn("page request refused", zapPath(r), zap.String("reason", reason))
		writeError(w, http.StatusForbidden, "PAGE_FORBIDDEN", "continuity proxy: refused: "+reason)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	route(w, r)
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

func (p *Proxy) state(w http.ResponseWriter, r *http.Request) {
	st, err := p.Snapshot(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, diagCode(err, "POLICY_UNAVAILABLE"), "continuity proxy: "+err.Error())
		return
	}
	writeJSON(w, st)
}

func (p *Proxy) setSession(w http.ResponseWriter, r *http.Request) {
	var c sessionChange
	if !readJSON(w, r, &c) {
		return
	}
	var enabled *bool
	switch c.Policy {
	case "on", "off":
		enabled = new(c.Policy == "on")
	case "default":
	default:
		writeError(w, http.StatusBadRequest, "BAD_REQUEST", `continuity proxy: policy must be "on", "off" or "default"`)
		return
	}
	born, ok := p.sessions.firstSeen(c.Session)
	at := born.UnixMilli()
	if !ok {
		var err error
		if at, ok, err = p.ledger.bornAt(r.Context(), c.Session); err != nil {
			writeError(w, http.StatusServiceUnavailable, diag.StorageUnavailable, "continuity proxy: "+err.Error())
			return
		}
	}
	if !ok {
		writeError(w, http.StatusNotFound, "UNKNOWN_SESSION", "continuity proxy: no proxy on this data directory has seen that session")
		return
	}
	if err := SetSession(r.Context(), p.cfg.Policy, c.Session, at, enabled); err != nil {
		writeError(w, http.StatusConflict, diagCode(err, "POLICY_UNAVAILABLE"), "continuity proxy: "+err.Error())
		return
	}
	p.cfg.Log.Info("session policy changed on the page", zap.String("session", c.Session), zap.String("policy", c.Policy))
	p.state(w, r)
}

func (p *Proxy) setDefault(w http.ResponseWriter, r *http.Request) {
	var c defaultChange
	if !readJSON(w, r, &c) {
		return
	}
	if c.Enabled == nil {
		writeError(w, http.StatusBadRequest, "BAD_REQUEST", "continuity proxy: enabled must be true or false")
		return
	}
	if err := SetDefault(r.Context(), p.cfg.Policy, *c.Enabled); err != nil {
		writeError(w, http.StatusConflict, diagCode(err, "POLICY_UNAVAILABLE"), "continuity proxy: "+err.Error())
		return
	}
	p.cfg.Log.Info("new-session default changed on the page", zap.Bool("enabled", *c.Enabled))
	p.state(w, r)
}

// readJSON decodes a small JSON body strictly, answering 400 when it fails.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(io.LimitReader(r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "BAD_REQUEST", "continuity proxy: the request is not the expected JSON: "+err.Error())
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "INTERNAL", "continuity proxy: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

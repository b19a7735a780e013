package settings

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/internal/strictjson"
)

// Policy reads and writes the continuation policy in the host's settings
// (or the embedded FileStore). It keeps no cache of the namespace: every
// call reads it, so several processes and the host's own UI can share it,
// and every write is a compare-and-swap under the revision it was computed
// from. Only the parse of what was read is kept (parsed), for a namespace
// read back byte for byte the same. A Policy is safe for concurrent use.
type Policy struct {
	store  hostapi.Settings
	now    func() time.Time
	parsed parsedState
}

// Option configures a Policy.
type Option func(*Policy)

// WithClock replaces time.Now, so tests can hold the clock still or move it
// backwards; changedAt stays strictly increasing regardless.
func WithClock(now func() time.Time) Option { return func(p *Policy) { p.now = now } }

// NewPolicy returns a Policy over store.
func NewPolicy(store hostapi.Settings, opts ...Option) *Policy {
	p := &Policy{store: store, now: time.Now}
	for _, o := range opts {
		o(p)
	}
	return p
}

// nowMs is the clock in ms, clamped to the stored timestamp range.
func (p *Policy) nowMs() int64 {
	return min(max(p.now().UnixMilli(), 0), maxTimestampMs)
}

// state is the namespace at one revision, parsed down to the two keys
// continuity owns; other keys are never decoded.
type state struct {
	revision int64
	rows     []Row
	history  []DefaultRow
}

// read describes the namespace and parses the owned keys strictly.
func (p *Policy) read(ctx context.Context) (state, error) {
	ns, err := p.store.Describe(ctx, Namespace)
	if err != nil {
		return state{}, storeError(err)
	}
	return p.parsed.parse(ns)
}

// parsedState keeps the last namespace parsed and its state, so a
// namespace read again at the same revision with the same bytes (every
// new turn's policy resolution) is compared, not parsed again. parseState
// depends only on those two, and no caller edits a state's rows or
// history in place (writes build the next state from copies), so sharing
// one state between reads changes nothing.
type parsedState struct {
	mu       sync.Mutex
	revision int64
	value    []byte // nil before the first parse
	st       state
}

func (c *parsedState) parse(ns hostapi.Namespace) (state, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.value != nil && c.revision == ns.Revision && bytes.Equal(c.value, ns.Value) {
		return c.st, nil
	}
	st, err := parseState(ns)
	if err != nil {
		return state{}, err
	}
	c.revision, c.value, c.st = ns.Revision, bytes.Clone(ns.Value), st
	if c.value == nil {
		c.value = []byte{}
	}
	return st, nil
}

func parseState(ns hostapi.Namespace) (state, error) {
	// A value with a member twice (or a number no host writes) has no one
	// meaning: which copy a reader takes decides the policy, and a write
	// computed from one copy would silently drop the other.
	if err := strictjson.Check(ns.Value); err != nil && len(bytes.TrimSpace(ns.Value)) > 0 {
		return state{}, diag.Newf(diag.SettingsInvalid, "settings namespace %q: %v", Namespace, err)
	}
	m, err := object(ns.Value)
	if err != nil {
		return state{}, diag.Newf(diag.SettingsInvalid, "settings namespace %q is not an object", Namespace)
	}
	st := state{revision: ns.Revision}
	if st.rows, err = parseRows(m[KeySessions]); err != nil {
		return state{}, diag.Newf(diag.SettingsInvalid, "settings %s.%s%v", Namespace, KeySessions, keyErr(err))
	}
	if st.history, err = parseHistory(m[KeyDefaults]); err != nil {
		return state{}, diag.Newf(diag.SettingsInvalid, "settings %s.%s%v", Namespace, KeyDefaults, keyErr(err))
	}
	return st, nil
}

// keyErr formats a row error after the key name: "[3].version: …" attaches
// directly, a whole-value error gets ": ".
func keyErr(err error) string {
	if s := err.Error(); len(s) > 0 && s[0] == '[' {
		return s
	}
	return ": " + err.Error()
}

// encoded is the JSON value of one owned key, never null.
func (s state) encoded(key string) json.RawMessage {
	var v any = s.rows
	if key == KeyDefaults {
		v = s.history
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return json.RawMessage("[]")
	}
	return b
}

// commit writes next's value of key with one "set" op under base's revision
// and reads the namespace back. When the namespace is still at the write's
// revision, the key must read back exactly as written; when other writers
// have moved it on since, kept must confirm that this write's own change is
// still in effect. Anything else — an older revision, a different value, an
// unreadable namespace — is COMMIT_UNCERTAIN, because the write may or may
// not have landed. It returns the state read back.
func (p *Policy) commit(ctx context.Context, base state, key string, next state, kept func(state) bool) (state, error) {
	written := next.encoded(key)
	ops := []hostapi.Op{{Op: "set", Path: []string{key}, Value: written}}
	rev, err := p.store.Mutate(ctx, Namespace, ops, base.revision)
	if err != nil {
		return state{}, p.failedWrite(ctx, base, key, err)
	}
	back, err := p.read(ctx)
	if err != nil {
		return state{}, diag.Newf(diag.CommitUncertain, "settings %s.%s was written at revision %d but could not be read back: %v",
			Namespace, key, rev, err).With("revision", rev)
	}
	same := back.revision == rev && string(back.encoded(key)) == string(written)
	if !same && (back.revision <= rev || !kept(back)) {
		return state{}, diag.Newf(diag.CommitUncertain, "settings %s.%s written at revision %d reads back differently at revision %d",
			Namespace, key, rev, back.revision).With("revision", rev).With("actual", back.revision)
	}
	return back, nil
}

// failedWrite names a write the store reported as failed. A conflict or a
// malformed stored document is a definite refusal. Any other failure may
// have come after the write landed (a reply lost on the way, a rename done
// before the directory sync failed), so the namespace is read back: still
// at the base revision means nothing was written (SETTINGS_UNAVAILABLE);
// moved on, or unreadable, means the write may or may not have landed
// (COMMIT_UNCERTAIN), so the client re-reads instead of assuming either.
// A cancelled caller gets the store's error as it is.
func (p *Policy) failedWrite(ctx context.Context, base state, key string, err error) error {
	named := storeError(err)
	if c := diag.CodeOf(named); c == diag.Conflict || c == diag.SettingsInvalid || ctx.Err() != nil {
		return named
	}
	ns, rerr := p.store.Describe(ctx, Namespace)
	if rerr == nil && ns.Revision == base.revision {
		return named
	}
	e := diag.Newf(diag.CommitUncertain, "settings %s.%s: the write failed (%s) but may have landed", Namespace, key, diag.CodeOf(named)).
		With("expected", base.revision)
	if rerr == nil {
		e = e.With("actual", ns.Revision)
	}
	return e
}

// HostConflict is the data.code a host (and FileStore) gives a settings
// write whose expectedRevision is stale.
const HostConflict = diag.HostSettingsConflict

// HostConflictError is the host's stale-write error, in the exact words of
// the DSH settings service (docs/suppliers.md §4).
func HostConflictError(ns string, expected, actual int64) *diag.Error {
	return staleRevision(HostConflict, ns, expected, actual)
}

func staleRevision(code, ns string, expected, actual int64) *diag.Error {
	return diag.Newf(code, "settings namespace %q changed since it was read (expected revision %d, now %d)", ns, expected, actual).
		With("expected", expected).With("actual", actual)
}

// conflict is the client-facing COPILOT_CONTINUATION_CONFLICT.
func conflict(expected, actual int64) *diag.Error {
	return staleRevision(diag.Conflict, Namespace, expected, actual)
}

// storeError names a failure of the settings service: a stale write becomes
// CONFLICT (keeping expected/actual), a malformed stored document stays
// SETTINGS_INVALID, and everything else — unreachable host, timeouts,
// refused operations — is SETTINGS_UNAVAILABLE.
func storeError(err error) error {
	var d *diag.Error
	if errors.As(err, &d) {
		switch d.Code {
		case HostConflict:
			e, _ := asInt64(d.Data["expected"])
			a, _ := asInt64(d.Data["actual"])
			return conflict(e, a)
		case diag.SettingsInvalid, diag.SettingsUnavailable:
			return d
		}
	}
	return diag.Newf(diag.SettingsUnavailable, "settings namespace %q: %v", Namespace, err)
}

// asInt64 reads an integer from decoded error data, whichever way the
// transport decoded it.
func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), n == float64(int64(n))
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// ConflictError is the client-facing COPILOT_CONTINUATION_CONFLICT for a
// stale client revision, for callers that check a revision without writing
// (the legacy authorizeNext Remote method).
func ConflictError(expected, actual int64) *diag.Error { return conflict(expected, actual) }

package server_test

// End-to-end tests of the Session policy's persistence (issue 4): the real
// binary under the host double, with the policy in the host's settings
// service or in the embedded store under the data directory. This file holds
// the harness the settings_e2e_*_test.go files share.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/remote"
	"github.com/continuity-dev/continuity/settings"
)

// settingsMode says where the policy lives: in the host's settings service
// (capabilities.settings true) or in the plugin's embedded store.
type settingsMode struct {
	name         string
	hostSettings bool
}

var settingsModes = []settingsMode{{"host", true}, {"embedded", false}}

func (m settingsMode) caps() host.Capabilities {
	c := host.AllCapabilities()
	c.Settings = m.hostSettings
	return c
}

// settingsEnv is one plugin process on a data directory that outlives it.
type settingsEnv struct {
	t    *testing.T
	mode settingsMode
	dir  string
	h    *host.Host
}

// settingsStart starts a plugin on dir without initializing it, so a test
// can plant settings first.
func settingsStart(t *testing.T, mode settingsMode, dir string) *settingsEnv {
	t.Helper()
	return &settingsEnv{t: t, mode: mode, dir: dir, h: startHost(t, host.Config{DataDir: dir})}
}

// settingsReady starts and initializes a plugin on a fresh data directory
// and requires a successful activation.
func settingsReady(t *testing.T, mode settingsMode) *settingsEnv {
	t.Helper()
	e := settingsStart(t, mode, t.TempDir())
	e.initReady()
	return e
}

func (e *settingsEnv) init() host.InitializeResult {
	e.t.Helper()
	res, err := e.h.Initialize(ctxT(e.t), e.mode.caps())
	if err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	return res
}

func (e *settingsEnv) initReady() {
	e.t.Helper()
	if res := e.init(); res.Activation.State != "ready" {
		e.t.Fatalf("%s: activation = %+v", e.mode.name, res.Activation)
	}
}

// restart closes the plugin (it must exit cleanly) and starts a new host
// double and plugin on the same data directory. Host settings outlive the
// plugin as a real host's do: the document is carried over to the new
// double.
func (e *settingsEnv) restart() host.InitializeResult {
	e.t.Helper()
	value, rev := e.h.Settings(settings.Namespace)
	if err := e.h.Close(); err != nil {
		e.t.Fatalf("plugin did not exit cleanly: %v", err)
	}
	e.h = startHost(e.t, host.Config{DataDir: e.dir})
	if e.mode.hostSettings {
		if err := e.h.SetSettingsRaw(settings.Namespace, value, rev); err != nil {
			e.t.Fatal(err)
		}
	}
	return e.init()
}

// docPath is the embedded store's document for the namespace.
func (e *settingsEnv) docPath() string {
	return filepath.Join(e.dir, "settings", settings.Namespace+".json")
}

// plant stores value (any JSON) as the namespace at rev, in the host or
// as the embedded document; the plugin must not be writing meanwhile.
func (e *settingsEnv) plant(value string, rev int64) {
	e.t.Helper()
	if e.mode.hostSettings {
		if err := e.h.SetSettingsRaw(settings.Namespace, []byte(value), rev); err != nil {
			e.t.Fatal(err)
		}
		return
	}
	doc, err := json.Marshal(map[string]any{"revision": rev, "value": json.RawMessage(value)})
	if err != nil {
		e.t.Fatal(err)
	}
	e.plantFile(doc)
}

// plantFile writes the embedded document verbatim, malformed or not.
func (e *settingsEnv) plantFile(doc []byte) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(e.docPath()), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(e.docPath(), doc, 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// snapshot is the stored form, byte for byte, for "left untouched" checks:
// the host's value and revision, or the embedded file.
func (e *settingsEnv) snapshot() string {
	e.t.Helper()
	if e.mode.hostSettings {
		v, rev := e.h.Settings(settings.Namespace)
		b, _ := json.Marshal(map[string]any{"revision": rev, "value": json.RawMessage(v)})
		return string(b)
	}
	b, err := os.ReadFile(e.docPath())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		e.t.Fatal(err)
	}
	return string(b)
}

// settingsStored is the namespace as stored, parsed strictly.
type settingsStored struct {
	Revision int64
	Value    map[string]json.RawMessage
	Rows     []settings.Row
	History  []settings.DefaultRow
}

// stored reads the namespace; the embedded file must be exactly
// {"revision": N, "value": {…}}.
func (e *settingsEnv) stored() settingsStored {
	e.t.Helper()
	var s settingsStored
	var value json.RawMessage
	if e.mode.hostSettings {
		value, s.Revision = e.h.Settings(settings.Namespace)
	} else {
		b, err := os.ReadFile(e.docPath())
		if err != nil {
			e.t.Fatalf("embedded document: %v", err)
		}
		s.Revision, value = settingsParseDoc(e.t, b)
	}
	if err := json.Unmarshal(value, &s.Value); err != nil || s.Value == nil {
		e.t.Fatalf("namespace value is not an object: %s", value)
	}
	settingsStrict(e.t, s.Value[settings.KeySessions], &s.Rows)
	settingsStrict(e.t, s.Value[settings.KeyDefaults], &s.History)
	return s
}

// settingsParseDoc parses an embedded document strictly.
func settingsParseDoc(t *testing.T, b []byte) (int64, json.RawMessage) {
	t.Helper()
	var doc struct {
		Revision *int64          `json:"revision"`
		Value    json.RawMessage `json:"value"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&doc); err != nil || d.More() || doc.Revision == nil || *doc.Revision < 0 {
		t.Fatalf("embedded document does not parse (%v): %.200s", err, b)
	}
	return *doc.Revision, doc.Value
}

func settingsStrict(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if raw == nil {
		return
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		t.Fatalf("stored key does not parse: %v: %.200s", err, raw)
	}
}

// row returns the stored row of sessionID, if any.
func (s settingsStored) row(sessionID string) (settings.Row, bool) {
	for _, r := range s.Rows {
		if r.SessionID == sessionID {
			return r, true
		}
	}
	return settings.Row{}, false
}

// invoke calls a githubCopilotSessionContinuation method.
func (e *settingsEnv) invoke(method string, args any) host.RemoteResult {
	e.t.Helper()
	res, err := e.h.RemoteInvoke(ctxT(e.t), remote.HistoryPolicyNamespace, method, args)
	if err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
	return res
}

// ok calls a method that must succeed and decodes its value into v.
func (e *settingsEnv) ok(method string, args, v any) {
	e.t.Helper()
	res := e.invoke(method, args)
	if !res.OK {
		e.t.Fatalf("%s %v: %s", method, args, res.Raw)
	}
	if err := json.Unmarshal(res.Value, v); err != nil {
		e.t.Fatalf("%s value: %v", method, err)
	}
}

// fail calls a method that must fail with code.
func (e *settingsEnv) fail(method string, args any, code string) *host.RemoteError {
	e.t.Helper()
	res := e.invoke(method, args)
	if res.OK || res.Error == nil || res.Error.Code != code {
		e.t.Fatalf("%s %v: got %s, want error %s", method, args, res.Raw, code)
	}
	return res.Error
}

func (e *settingsEnv) get(sessionID string) remote.PolicyView {
	e.t.Helper()
	var v remote.PolicyView
	e.ok("get", map[string]any{"agentId": sessionID}, &v)
	return v
}

// set writes sessionID's policy at the current revision.
func (e *settingsEnv) set(sessionID string, enabled *bool) remote.PolicyView {
	e.t.Helper()
	rev := e.get(sessionID).Revision
	var v remote.PolicyView
	e.ok("set", map[string]any{"agentId": sessionID, "revision": rev, "enabled": enabled}, &v)
	return v
}

func (e *settingsEnv) defaults() settings.Default {
	e.t.Helper()
	var d settings.Default
	e.ok("defaults", nil, &d)
	return d
}

func (e *settingsEnv) setDefault(enabled bool) settings.Default {
	e.t.Helper()
	var d settings.Default
	e.ok("setDefault", map[string]any{"revision": e.defaults().Revision, "enabled": enabled}, &d)
	return d
}

// agent makes sessionID known to agents/get, born at createdAt (nil: no
// createdAt) as a fresh, unseeded session.
func (e *settingsEnv) agent(sessionID string, createdAt *int64) {
	e.h.SetAgent(sessionID, &hostapi.SessionHeader{CreatedAt: createdAt}, host.StatusIdle)
}

// epoch is the changedAt of the activation row.
func (e *settingsEnv) epoch() int64 {
	e.t.Helper()
	s := e.stored()
	if len(s.History) == 0 {
		e.t.Fatal("no activation epoch stored")
	}
	return s.History[0].ChangedAt
}

// changed returns the args of every changed event so far.
func (e *settingsEnv) changed() []json.RawMessage {
	var out []json.RawMessage
	for _, n := range e.h.RemoteEvents(remote.PolicyChangedEvent) {
		out = append(out, n.Args)
	}
	return out
}

func settingsBool(b bool) *bool { return &b }

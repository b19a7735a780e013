package server_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/settings"
)

// settingsForeign are keys of the github-copilot namespace that belong to
// someone else; every write must leave them exactly as they are.
const settingsForeign = `{"theme":"dark","sessionContinuationLegacyNote":"keep","nested":{"a":[1,2.5,"x"],"b":null}}`

// TestSettingsWritesAreCASAndKeepOtherKeys: every write through the Remote
// is read-modify-write under the revision the client saw: a stale one is
// CONFLICT and writes nothing, and no write touches other keys.
func TestSettingsWritesAreCASAndKeepOtherKeys(t *testing.T) {
	for _, mode := range settingsModes {
		t.Run(mode.name, func(t *testing.T) {
			e := settingsStart(t, mode, t.TempDir())
			e.plant(settingsForeign, 7)
			e.initReady()
			e.agent("s1", nil)
			e.agent("s2", nil)
			writes := []struct {
				name string
				do   func()
			}{
				{"set s1 on", func() { e.set("s1", settingsBool(true)) }},
				{"set s2 off", func() { e.set("s2", settingsBool(false)) }},
				{"set s1 off", func() { e.set("s1", settingsBool(false)) }},
				{"set s1 null", func() { e.set("s1", nil) }},
				{"setDefault off", func() { e.setDefault(false) }},
				{"setDefault on", func() { e.setDefault(true) }},
			}
			rev := e.stored().Revision
			for _, w := range writes {
				w.do()
				s := e.stored()
				if s.Revision != rev+1 {
					t.Fatalf("%s: revision %d, want %d (one write)", w.name, s.Revision, rev+1)
				}
				rev = s.Revision
				settingsOtherKeys(t, s, settingsForeign)
			}
			s := e.stored()
			if _, ok := s.row("s1"); ok || len(s.Rows) != 1 || s.Rows[0].On() {
				t.Fatalf("rows = %+v, want only s2 off", s.Rows)
			}

			// A stale revision is CONFLICT, before and instead of a write.
			before := e.snapshot()
			for _, c := range []struct {
				method string
				args   map[string]any
			}{
				{"set", map[string]any{"agentId": "s1", "revision": rev - 1, "enabled": true}},
				{"set", map[string]any{"agentId": "s1", "revision": rev + 1, "enabled": nil}},
				{"set", map[string]any{"agentId": "s2", "revision": int64(0), "enabled": true}},
				{"setDefault", map[string]any{"revision": rev - 3, "enabled": false}},
				{"authorizeNext", map[string]any{"agentId": "s1", "revision": rev - 1, "enabled": true}},
			} {
				er := e.fail(c.method, c.args, diag.Conflict)
				var d struct{ Expected, Actual int64 }
				if err := json.Unmarshal(er.Details, &d); err != nil || d.Expected != c.args["revision"].(int64) || d.Actual != rev {
					t.Fatalf("%s conflict details %s, want expected %v actual %d", c.method, er.Details, c.args["revision"], rev)
				}
			}
			if e.snapshot() != before {
				t.Fatal("a stale write changed the namespace")
			}
			if v := e.get("s1"); v.NextTurnAuthorized {
				t.Fatal("a stale authorizeNext recorded a consent")
			}
			if mode.hostSettings {
				settingsOnlyOwnedSets(t, e.h, len(writes)+1)
			}
		})
	}
}

// TestSettingsChangedEvents: each write that changes something is
// announced once with the state read back (the double validates the
// event's schema); writes that change nothing are silent.
func TestSettingsChangedEvents(t *testing.T) {
	for _, mode := range settingsModes {
		t.Run(mode.name, func(t *testing.T) {
			e := settingsReady(t, mode)
			e.agent("s1", nil)
			e.agent("s9", nil)
			v := e.set("s1", settingsBool(true))
			e.set("s1", settingsBool(true)) // no change
			e.set("s9", nil)                // no row to remove: no change
			d := e.setDefault(false)
			e.setDefault(false) // no change
			c := e.invoke("authorizeNext", map[string]any{"agentId": "s1", "revision": d.Revision, "enabled": true})
			if !c.OK {
				t.Fatalf("authorizeNext: %s", c.Raw)
			}
			want := []string{
				fmt.Sprintf(`[{"agentId":"s1","enabled":true,"revision":%d,"source":"session"}]`, v.Revision),
				fmt.Sprintf(`[{"defaults":{"enabled":false,"revision":%d}}]`, d.Revision),
				fmt.Sprintf(`[{"agentId":"s1","enabled":true,"revision":%d,"source":"session","nextTurnAuthorized":true}]`, d.Revision),
			}
			got := e.changed()
			if len(got) != len(want) {
				t.Fatalf("%d changed events, want %d: %s", len(got), len(want), got)
			}
			for i := range want {
				if err := host.MatchJSON([]byte(want[i]), got[i]); err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
			}
		})
	}
	// A host without remoteEvents gets none (the double records any as a
	// violation), and the writes still succeed.
	t.Run("without remoteEvents", func(t *testing.T) {
		caps := settingsModes[1].caps()
		caps.RemoteEvents = false
		e := &settingsEnv{t: t, mode: settingsModes[1], h: initialized(t, host.Config{}, caps)}
		e.agent("s1", nil)
		if v := e.set("s1", settingsBool(true)); !v.Enabled {
			t.Fatalf("set: %+v", v)
		}
		if d := e.setDefault(false); d.Enabled {
			t.Fatalf("setDefault: %+v", d)
		}
	})
}

// TestSettingsCommitUncertain: a host that acknowledges a write it did not
// make is caught by the read-back, and one that loses the reply of a write
// it made is not taken at its word either: both are COMMIT_UNCERTAIN, and
// neither is announced.
func TestSettingsCommitUncertain(t *testing.T) {
	for _, c := range []struct {
		name   string
		fault  host.MutateFault
		landed bool
	}{
		{"acknowledged but not written", host.MutateLie, false},
		{"revision bumped but value kept", host.MutateLieBump, false},
		{"written but the reply lost", host.MutateApplyThenFail, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := settingsReady(t, settingsModes[0])
			e.agent("s1", nil)
			rev := e.get("s1").Revision
			e.h.SetMutateFault(c.fault)
			e.fail("set", map[string]any{"agentId": "s1", "revision": rev, "enabled": true}, diag.CommitUncertain)
			e.h.SetMutateFault(host.MutateHonest)
			if v := e.get("s1"); v.Enabled != c.landed {
				t.Fatalf("after the uncertain set: %+v, want enabled %v", v, c.landed)
			}
			e.h.SetMutateFault(c.fault)
			e.fail("setDefault", map[string]any{"revision": e.defaults().Revision, "enabled": false}, diag.CommitUncertain)
			e.h.SetMutateFault(host.MutateHonest)
			if d := e.defaults(); d.Enabled == c.landed {
				t.Fatalf("after the uncertain setDefault: %+v", d)
			}
			if len(e.changed()) != 0 {
				t.Fatalf("an uncertain write was announced: %s", e.changed())
			}
			if v := e.set("s1", settingsBool(false)); v.Enabled || v.Source != settings.SourceSession {
				t.Fatalf("after the host recovers: %+v", v)
			}
		})
	}
}

// settingsOnlyOwnedSets checks every settings/mutate the plugin sent: one
// "set" of one key continuity owns, never an unset or a write of the
// whole namespace. want is how many there must have been.
func settingsOnlyOwnedSets(t *testing.T, h *host.Host, want int) {
	t.Helper()
	n := 0
	for _, m := range h.Unread() {
		if m.Kind != host.KindRequest || m.Method != "settings/mutate" {
			continue
		}
		n++
		var p struct {
			NS  string `json:"ns"`
			Ops []struct {
				Op   string   `json:"op"`
				Path []string `json:"path"`
			} `json:"ops"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		ok := p.NS == settings.Namespace && len(p.Ops) == 1 && p.Ops[0].Op == "set" && len(p.Ops[0].Path) == 1 &&
			(p.Ops[0].Path[0] == settings.KeySessions || p.Ops[0].Path[0] == settings.KeyDefaults)
		if !ok {
			t.Fatalf("settings/mutate outside the owned keys: %s", m.Params)
		}
	}
	if n != want {
		t.Fatalf("%d settings/mutate sent, want %d", n, want)
	}
}

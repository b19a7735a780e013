package server_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/remote"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/turns"
)

// TestSettingsBirthDefaults: a session without its own row gets the
// default that was in force when it was born, and only when its header
// proves a fresh, unseeded birth after the activation epoch.
func TestSettingsBirthDefaults(t *testing.T) {
	for _, mode := range settingsModes {
		t.Run(mode.name, func(t *testing.T) {
			e := settingsReady(t, mode)
			epoch := e.epoch()
			at := func(ms int64) *int64 { return &ms }
			cases := []struct {
				name   string
				header *hostapi.SessionHeader
				on     bool
			}{
				{"fresh after the epoch", &hostapi.SessionHeader{CreatedAt: at(epoch + 1)}, true},
				{"fresh long after the epoch", &hostapi.SessionHeader{CreatedAt: at(epoch + 86_400_000)}, true},
				{"born at the epoch", &hostapi.SessionHeader{CreatedAt: at(epoch)}, false},
				{"born before the epoch", &hostapi.SessionHeader{CreatedAt: at(epoch - 1)}, false},
				{"seeded", &hostapi.SessionHeader{CreatedAt: at(epoch + 1), IsSeeded: true}, false},
				{"fork", &hostapi.SessionHeader{CreatedAt: at(epoch + 1), ParentSession: "parent"}, false},
				{"no createdAt", &hostapi.SessionHeader{}, false},
				{"missing header", nil, false},
			}
			for i, c := range cases {
				id := fmt.Sprintf("birth-%d", i)
				e.h.SetAgent(id, c.header, host.StatusIdle)
				if v := e.get(id); v.Enabled != c.on || v.Source != settings.SourceDefault {
					t.Errorf("%s: get = %+v, want enabled %v from the default", c.name, v, c.on)
				}
				if a := admit(t, e.h, id, 1, 1, id+"-r1"); a.Admission == nil || a.Admission.Enabled != c.on || a.Admission.Source != turns.SourceDefault {
					t.Errorf("%s: admission = %+v, want enabled %v", c.name, a.Admission, c.on)
				}
			}
		})
	}
}

// TestSettingsSetDefaultAffectsOnlyLaterSessions: changing the default
// appends to the history, so sessions born before keep the default of
// their birth and only sessions born afterwards follow the new one.
func TestSettingsSetDefaultAffectsOnlyLaterSessions(t *testing.T) {
	e := settingsReady(t, settingsModes[0])
	epoch := e.epoch()
	born := func(id string, ms int64) { e.agent(id, &ms) }
	born("early", epoch+1)
	if !e.get("early").Enabled {
		t.Fatal("a session born after the epoch is off")
	}

	settingsPastMs(epoch + 1) // so the new row is stamped after "early"
	if d := e.setDefault(false); d.Enabled {
		t.Fatalf("setDefault(false) = %+v", d)
	}
	off := e.stored().History[1].ChangedAt
	born("at-change", off)
	born("late", off+1)
	settingsPastMs(off + 1)
	e.setDefault(true)
	on := e.stored().History[2].ChangedAt
	born("latest", on+1)

	want := map[string]bool{"early": true, "at-change": true, "late": false, "latest": true}
	for id, enabled := range want {
		if v := e.get(id); v.Enabled != enabled || v.Source != settings.SourceDefault {
			t.Errorf("%s: %+v, want enabled %v", id, v, enabled)
		}
		if a := admit(t, e.h, id, 1, 1, id); a.Admission == nil || a.Admission.Enabled != enabled {
			t.Errorf("%s: admission %+v, want enabled %v", id, a.Admission, enabled)
		}
	}
	if h := e.stored().History; len(h) != 3 || !h[0].Enabled || h[1].Enabled || !h[2].Enabled {
		t.Fatalf("history %+v, want on, off, on", h)
	}
}

// TestSettingsMidTurnChangeAppliesNextTurn: the running turn keeps the
// policy it captured; the view shows the new persistent policy beside it
// until turn/end, and the next turn captures the new one.
func TestSettingsMidTurnChangeAppliesNextTurn(t *testing.T) {
	e := settingsReady(t, settingsModes[1])
	freshSession(t, e.h, "s1")
	if a := admit(t, e.h, "s1", 1, 1, "r1"); a.Admission == nil || !a.Admission.Enabled {
		t.Fatalf("turn 1 admission = %+v", a.Admission)
	}
	for name, v := range map[string]remote.PolicyView{"set": e.set("s1", settingsBool(false)), "get": e.get("s1")} {
		if got := settingsViewString(v); got != "enabled=false source=session active=true" {
			t.Fatalf("%s mid-turn: %s", name, got)
		}
	}
	settingsTurnEnd(t, e.h, "s1", 1)
	if got := settingsViewString(e.get("s1")); got != "enabled=false source=session active=none" {
		t.Fatalf("after turn/end: %s", got)
	}
	if a := admit(t, e.h, "s1", 2, 1, "r2"); a.Admission == nil || a.Admission.Enabled {
		t.Fatalf("turn 2 admission = %+v, want off", a.Admission)
	}
	if got := settingsViewString(e.set("s1", settingsBool(true))); got != "enabled=true source=session active=false" {
		t.Fatalf("set(true) during turn 2: %s", got)
	}
}

// TestSettingsRestartKeepsRowsAndLosesConsent: explicit rows (and a
// legacy row) are in settings and survive a restart; a one-turn consent
// lives only in the process that showed it, covers one turn, and is gone
// after a restart.
func TestSettingsRestartKeepsRowsAndLosesConsent(t *testing.T) {
	for _, mode := range settingsModes {
		t.Run(mode.name, func(t *testing.T) {
			e := settingsStart(t, mode, t.TempDir())
			e.plant(`{"sessionContinuation":[{"sessionId":"legacy","version":1,"consentedAt":5}]}`, 1)
			e.initReady()
			epoch := e.epoch()
			agents := func() {
				for _, id := range []string{"on", "off", "legacy"} {
					e.agent(id, &[]int64{epoch + 1}[0])
				}
				for _, id := range []string{"consent", "consent-used"} {
					e.agent(id, &[]int64{epoch - 1}[0]) // default off
				}
			}
			agents()
			e.set("on", settingsBool(true))
			e.set("off", settingsBool(false))
			for _, id := range []string{"consent", "consent-used"} {
				rev := e.get(id).Revision
				e.ok("authorizeNext", map[string]any{"agentId": id, "revision": rev, "enabled": true}, new(any))
				if !e.get(id).NextTurnAuthorized {
					t.Fatalf("%s: consent not shown", id)
				}
			}
			if a := admit(t, e.h, "consent-used", 1, 1, "c1"); a.Admission == nil || !a.Admission.Enabled || a.Admission.Source != turns.SourceNextTurn {
				t.Fatalf("consented turn: %+v", a.Admission)
			}
			settingsTurnEnd(t, e.h, "consent-used", 1)
			if a := admit(t, e.h, "consent-used", 2, 1, "c2"); a.Admission == nil || a.Admission.Enabled {
				t.Fatalf("the turn after a consented one: %+v", a.Admission)
			}
			if s := e.stored(); len(s.Rows) != 3 {
				t.Fatalf("rows %+v: consents must never be stored", s.Rows)
			}

			if res := e.restart(); res.Activation.State != "ready" {
				t.Fatalf("restart: %+v", res.Activation)
			}
			agents()
			want := map[string]string{
				"on":      "enabled=true source=session active=none",
				"off":     "enabled=false source=session active=none",
				"legacy":  "enabled=true source=session active=none",
				"consent": "enabled=false source=default active=none",
			}
			for id, w := range want {
				if got := settingsViewString(e.get(id)); got != w {
					t.Errorf("%s after restart: %s, want %s", id, got, w)
				}
			}
			if a := admit(t, e.h, "consent", 1, 1, "r"); a.Admission == nil || a.Admission.Enabled {
				t.Fatalf("a consent survived the restart: %+v", a.Admission)
			}
			if r, ok := e.stored().row("legacy"); !ok || r.Enabled != nil || r.ConsentedAt != 5 {
				t.Fatalf("legacy row rewritten: %+v", r)
			}
		})
	}
}

// settingsViewString summarizes the policy members of a view.
func settingsViewString(v remote.PolicyView) string {
	active := "none"
	if v.ActiveTurnEnabled != nil {
		active = fmt.Sprint(*v.ActiveTurnEnabled)
	}
	return fmt.Sprintf("enabled=%v source=%s active=%s", v.Enabled, v.Source, active)
}

func settingsTurnEnd(t *testing.T, h *host.Host, sessionID string, turn int) {
	t.Helper()
	if _, err := h.SessionEvent(sessionID, host.Ev("turn/end", map[string]any{"turn": turn, "reason": "completed"}), nil); err != nil {
		t.Fatal(err)
	}
}

// settingsPastMs waits until the wall clock has passed ms, so a row the
// plugin stamps next lies strictly after it. It orders events; it asserts
// nothing about how long anything takes.
func settingsPastMs(ms int64) {
	for time.Now().UnixMilli() <= ms {
		time.Sleep(time.Millisecond)
	}
}

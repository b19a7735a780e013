package server_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/settings"
)

// TestSettingsRowLimit: 2,048 rows fit; the 2,049th session is
// SETTINGS_LIMIT and writes nothing, while existing rows still change and
// removing one makes room.
func TestSettingsRowLimit(t *testing.T) {
	for _, mode := range settingsModes {
		t.Run(mode.name, func(t *testing.T) {
			e := settingsStart(t, mode, t.TempDir())
			rows := make([]settings.Row, settings.MaxRows)
			for i := range rows {
				rows[i] = settings.Row{SessionID: fmt.Sprintf("full-%04d", i), Version: 1, ConsentedAt: 1, Enabled: settingsBool(i%2 == 0)}
			}
			value, _ := json.Marshal(map[string]any{
				settings.KeySessions: rows,
				settings.KeyDefaults: []settings.DefaultRow{{Enabled: true, ChangedAt: time.Now().UnixMilli() - 1000}},
			})
			e.plant(string(value), 3)
			e.initReady()
			e.agent("extra", nil)
			e.agent("full-0001", nil)
			before := e.snapshot()
			er := e.fail("set", map[string]any{"agentId": "extra", "revision": 3, "enabled": true}, diag.SettingsLimit)
			if e.snapshot() != before {
				t.Fatal("the refused row was written")
			}
			var d struct{ Limit int }
			if json.Unmarshal(er.Details, &d) != nil || d.Limit != settings.MaxRows {
				t.Fatalf("details %s, want limit %d", er.Details, settings.MaxRows)
			}
			if v := e.set("full-0001", settingsBool(true)); !v.Enabled || v.Revision != 4 {
				t.Fatalf("changing an existing row at the limit: %+v", v)
			}
			e.set("full-0001", nil)
			if v := e.set("extra", settingsBool(true)); !v.Enabled || v.Revision != 6 {
				t.Fatalf("after removing a row: %+v", v)
			}
			if s := e.stored(); len(s.Rows) != settings.MaxRows {
				t.Fatalf("%d rows stored", len(s.Rows))
			}
		})
	}
}

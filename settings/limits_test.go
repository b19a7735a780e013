package settings_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/settings/settingstest"
)

func TestRowLimits(t *testing.T) {
	ctx := context.Background()
	rows := make([]settings.Row, settings.MaxRows)
	for i := range rows {
		rows[i] = settings.Row{SessionID: fmt.Sprintf("s%d", i), Version: 1, ConsentedAt: 1}
	}
	hist := make([]settings.DefaultRow, settings.MaxHistory)
	for i := range hist {
		hist[i] = settings.DefaultRow{Enabled: i%2 == 0, ChangedAt: int64(i + 1)}
	}
	rb, _ := json.Marshal(rows)
	hb, _ := json.Marshal(hist)
	m := &settingstest.Memory{}
	m.Put(ns, fmt.Sprintf(`{"sessionContinuation":%s,"continuationDefaultHistory":%s}`, rb, hb), 1)
	p := policy(m, newClock(100000))
	on := true
	_, _, err := p.Set(ctx, "the-2049th", nil, 1, &on)
	wantCode(t, err, diag.SettingsLimit)
	// The last history row (index 2047) is off, so turning the default on
	// needs a 2,049th row.
	_, _, err = p.SetDefault(ctx, 1, true)
	wantCode(t, err, diag.SettingsLimit)
	if m.Mutates() != 0 {
		t.Fatalf("a rejected write went through")
	}
	// A full table still takes changes to existing rows and removals.
	off := false
	if _, _, err := p.Set(ctx, "s7", nil, 1, &off); err != nil {
		t.Fatalf("changing a row of a full table: %v", err)
	}
	if _, _, err := p.Set(ctx, "s8", nil, 2, nil); err != nil {
		t.Fatalf("removing a row of a full table: %v", err)
	}
	if _, _, err := p.Set(ctx, "the-2048th", nil, 3, &on); err != nil {
		t.Fatalf("adding into the freed slot: %v", err)
	}
}

func TestUnstorableSessionID(t *testing.T) {
	m := &settingstest.Memory{}
	on := true
	for _, id := range []string{"", "a\u0000b", "a\u2060b", strings.Repeat("x", 257)} {
		_, _, err := policy(m, newClock(1)).Set(context.Background(), id, nil, 0, &on)
		wantCode(t, err, diag.SettingsLimit)
	}
	if m.Mutates() != 0 {
		t.Fatal("an unstorable id was written")
	}
}

package settings_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/settings/settingstest"
)

func TestBirthTimeDefaults(t *testing.T) {
	ctx := context.Background()
	m := &settingstest.Memory{}
	c := newClock(1000)
	p := policy(m, c)
	if err := p.Activate(ctx); err != nil { // epoch on at 1000
		t.Fatal(err)
	}
	var fractional hostapi.SessionHeader
	if err := json.Unmarshal([]byte(`{"createdAt":1500.5,"isSeeded":false}`), &fractional); err == nil {
		t.Fatal("a non-integer createdAt decoded into a header; resolution would see it")
	}
	tests := []struct {
		name   string
		header *hostapi.SessionHeader
		want   bool
	}{
		{"fresh after the epoch", born(1001), true},
		{"born in the epoch ms", born(1000), false},
		{"born before the epoch", born(999), false},
		{"seeded", &hostapi.SessionHeader{CreatedAt: new(int64(2000)), IsSeeded: true}, false},
		{"fork", &hostapi.SessionHeader{CreatedAt: new(int64(2000)), ParentSession: "parent"}, false},
		{"missing header", nil, false},
		{"missing createdAt", &hostapi.SessionHeader{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := p.Resolve(ctx, "s-"+tt.name, tt.header)
			if err != nil {
				t.Fatal(err)
			}
			if r.Enabled != tt.want || r.Source != settings.SourceDefault || r.Revision != 1 {
				t.Fatalf("Resolve = %+v, want enabled %v from the default at revision 1", r, tt.want)
			}
		})
	}
	// An explicit row wins over every default.
	off := true
	if _, _, err := p.Set(ctx, "s-fork", nil, 1, &off); err != nil {
		t.Fatal(err)
	}
	r, _ := p.Resolve(ctx, "s-fork", &hostapi.SessionHeader{ParentSession: "p"})
	if !r.Enabled || r.Source != settings.SourceSession {
		t.Fatalf("explicit row = %+v, want on from the session", r)
	}
}

func TestSetDefaultAffectsOnlyLaterSessions(t *testing.T) {
	ctx := context.Background()
	m := &settingstest.Memory{}
	c := newClock(1000)
	p := policy(m, c)
	if err := p.Activate(ctx); err != nil {
		t.Fatal(err)
	}
	c.set(2000)
	d, wrote, err := p.SetDefault(ctx, 1, false)
	if err != nil || !wrote || d.Enabled || d.Revision != 2 {
		t.Fatalf("SetDefault off = %+v, %v, %v", d, wrote, err)
	}
	c.set(3000)
	if _, _, err := p.SetDefault(ctx, 2, true); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		born int64
		want bool
	}{{1500, true}, {2000, true}, {2001, false}, {2999, false}, {3000, false}, {3001, true}} {
		if r, _ := p.Resolve(ctx, "s", born(tt.born)); r.Enabled != tt.want {
			t.Errorf("born %d: enabled %v, want %v", tt.born, r.Enabled, tt.want)
		}
	}
	// Repeating the current default writes nothing.
	d, wrote, err = p.SetDefault(ctx, 3, true)
	if err != nil || wrote || !d.Enabled || d.Revision != 3 || m.Mutates() != 3 {
		t.Fatalf("repeated SetDefault = %+v, wrote %v, %v (%d writes)", d, wrote, err, m.Mutates())
	}
}

func TestChangedAtStrictlyIncreases(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		ticks []int64 // clock at activation and at each SetDefault
	}{
		{"clock stands still", []int64{5000, 5000, 5000, 5000}},
		{"clock runs backwards", []int64{5000, 4000, 3000, 2000}},
		{"clock moves", []int64{5000, 6000, 7000, 8000}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &settingstest.Memory{}
			c := newClock(tt.ticks[0])
			p := policy(m, c)
			if err := p.Activate(ctx); err != nil {
				t.Fatal(err)
			}
			for i, tick := range tt.ticks[1:] {
				c.set(tick)
				if _, _, err := p.SetDefault(ctx, int64(i+1), i%2 == 1); err != nil {
					t.Fatalf("SetDefault %d: %v", i, err)
				}
			}
			raw, _ := m.Get(ns)
			var doc struct {
				History []settings.DefaultRow `json:"continuationDefaultHistory"`
			}
			json.Unmarshal([]byte(raw), &doc)
			if len(doc.History) != len(tt.ticks) {
				t.Fatalf("history has %d rows, want %d", len(doc.History), len(tt.ticks))
			}
			for i := 1; i < len(doc.History); i++ {
				if doc.History[i].ChangedAt <= doc.History[i-1].ChangedAt {
					t.Fatalf("changedAt not increasing: %+v", doc.History)
				}
			}
			if doc.History[0].ChangedAt != tt.ticks[0] || !doc.History[0].Enabled {
				t.Fatalf("epoch = %+v, want on at %d", doc.History[0], tt.ticks[0])
			}
		})
	}
}

// A Policy parses a namespace again whenever its revision or its bytes
// differ from the last one parsed, also for a host that rewrote the value
// without moving the revision, and a malformed value is an error on every
// read, never the last good state.
func TestResolveFollowsEveryChange(t *testing.T) {
	ctx := context.Background()
	mem := &settingstest.Memory{}
	p := settings.NewPolicy(mem)
	on := func() bool {
		t.Helper()
		r, err := p.Resolve(ctx, "s", nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.Enabled
	}
	row := func(enabled string) string {
		return `{"sessionContinuation":[{"sessionId":"s","version":1,"consentedAt":5,"enabled":` + enabled + `}]}`
	}
	mem.Put(ns, row("true"), 3)
	for range 2 {
		if !on() {
			t.Fatal("the session's row is on")
		}
	}
	mem.Put(ns, row("false"), 3)
	if on() {
		t.Fatal("a value rewritten at the same revision was not read")
	}
	mem.Put(ns, row("true"), 4)
	if !on() {
		t.Fatal("a new revision was not read")
	}
	mem.Put(ns, `{"sessionContinuation":"x"}`, 5)
	for range 2 {
		if _, err := p.Resolve(ctx, "s", nil); !diag.Has(err, diag.SettingsInvalid) {
			t.Fatalf("malformed rows: %v, want %s", err, diag.SettingsInvalid)
		}
	}
}

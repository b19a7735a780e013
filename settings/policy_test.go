package settings_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/settings/settingstest"
)

const ns = settings.Namespace

// clock is a settable test clock in ms.
type clock struct{ ms atomic.Int64 }

func newClock(ms int64) *clock  { c := &clock{}; c.ms.Store(ms); return c }
func (c *clock) now() time.Time { return time.UnixMilli(c.ms.Load()) }
func (c *clock) set(ms int64)   { c.ms.Store(ms) }
func policy(s hostapi.Settings, c *clock) *settings.Policy {
	return settings.NewPolicy(s, settings.WithClock(c.now))
}

func born(ms int64) *hostapi.SessionHeader { return &hostapi.SessionHeader{CreatedAt: &ms} }

// wantCode fails unless err carries code.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if !diag.Has(err, code) {
		t.Fatalf("err = %v, want %s", err, code)
	}
}

func TestStaleRevisionIsConflict(t *testing.T) {
	ctx := context.Background()
	on := true
	calls := []struct {
		name string
		call func(p *settings.Policy, rev int64) error
	}{
		{"Set", func(p *settings.Policy, rev int64) error {
			_, _, err := p.Set(ctx, "s1", nil, rev, &on)
			return err
		}},
		{"Set nil", func(p *settings.Policy, rev int64) error {
			_, _, err := p.Set(ctx, "s1", nil, rev, nil)
			return err
		}},
		{"SetDefault", func(p *settings.Policy, rev int64) error {
			_, _, err := p.SetDefault(ctx, rev, false)
			return err
		}},
	}
	for _, c := range calls {
		t.Run(c.name+"/client revision", func(t *testing.T) {
			m := &settingstest.Memory{}
			m.Put(ns, `{"other":1}`, 7)
			err := c.call(policy(m, newClock(1000)), 6)
			wantCode(t, err, diag.Conflict)
			var d *diag.Error
			errors.As(err, &d)
			if d.Data["expected"] != int64(6) || d.Data["actual"] != int64(7) {
				t.Errorf("data = %v, want expected 6, actual 7", d.Data)
			}
			if m.Mutates() != 0 {
				t.Errorf("a stale call wrote %d times", m.Mutates())
			}
		})
		t.Run(c.name+"/host revision moved", func(t *testing.T) {
			m := &settingstest.Memory{}
			m.Put(ns, `{"sessionContinuation":[{"sessionId":"s1","version":1,"consentedAt":1,"enabled":false}]}`, 3)
			r := &racer{Memory: m}
			err := c.call(policy(r, newClock(1000)), 3)
			wantCode(t, err, diag.Conflict)
			var d *diag.Error
			errors.As(err, &d)
			if d.Data["expected"] != int64(3) || d.Data["actual"] != int64(4) {
				t.Errorf("data = %v, want expected 3, actual 4", d.Data)
			}
		})
	}
}

// racer lets another writer change the namespace between the policy's read
// and its write.
type racer struct{ *settingstest.Memory }

func (r *racer) Mutate(ctx context.Context, ns string, ops []hostapi.Op, expected int64) (int64, error) {
	if _, err := r.Memory.Mutate(ctx, ns, []hostapi.Op{{Op: "set", Path: []string{"elsewhere"}, Value: json.RawMessage(`1`)}}, expected); err != nil {
		return 0, err
	}
	return r.Memory.Mutate(ctx, ns, ops, expected)
}

func TestWritesPreserveOtherKeys(t *testing.T) {
	ctx := context.Background()
	const others = `{"accounts":{"selected":"acct-1","list":[1,2.50,"x"]},"theme":"dark","nested":{"sessionContinuation":"not ours"}}`
	m := &settingstest.Memory{}
	m.Put(ns, others, 1)
	c := newClock(1000)
	p := policy(m, c)
	on, off := true, false
	steps := []struct {
		name string
		run  func(rev int64) error
	}{
		{"Activate", func(int64) error { return p.Activate(ctx) }},
		{"Set on", func(rev int64) error { _, _, err := p.Set(ctx, "s1", nil, rev, &on); return err }},
		{"Set other on", func(rev int64) error { _, _, err := p.Set(ctx, "s2", nil, rev, &on); return err }},
		{"Set off", func(rev int64) error { _, _, err := p.Set(ctx, "s1", nil, rev, &off); return err }},
		{"Set nil", func(rev int64) error { _, _, err := p.Set(ctx, "s1", nil, rev, nil); return err }},
		{"SetDefault off", func(rev int64) error { _, _, err := p.SetDefault(ctx, rev, false); return err }},
		{"SetDefault on", func(rev int64) error { _, _, err := p.SetDefault(ctx, rev, true); return err }},
	}
	var want map[string]json.RawMessage
	json.Unmarshal([]byte(others), &want)
	for _, s := range steps {
		_, rev := m.Get(ns)
		c.set(c.ms.Load() + 10)
		if err := s.run(rev); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		raw, after := m.Get(ns)
		if after != rev+1 {
			t.Fatalf("%s: revision %d → %d, want one write", s.name, rev, after)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Errorf("%s: key %s = %s, want %s", s.name, k, got[k], v)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok && k != settings.KeySessions && k != settings.KeyDefaults {
				t.Errorf("%s: wrote foreign key %q", s.name, k)
			}
		}
	}
}

func TestRestartKeepsExplicitRows(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *settings.Policy {
		fs, err := settings.OpenFileStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		return policy(fs, newClock(5000))
	}
	p := open()
	if err := p.Activate(ctx); err != nil {
		t.Fatal(err)
	}
	d, _ := p.Defaults(ctx)
	off, on := false, true
	r, wrote, err := p.Set(ctx, "fresh", born(9000), d.Revision, &off)
	if err != nil || !wrote {
		t.Fatalf("Set off: wrote %v, %v", wrote, err)
	}
	if _, _, err := p.Set(ctx, "old", born(1), r.Revision, &on); err != nil {
		t.Fatal(err)
	}
	p = open()
	if err := p.Activate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id     string
		header *hostapi.SessionHeader
		want   bool
	}{{"fresh", born(9000), false}, {"old", born(1), true}} {
		r, err := p.Resolve(ctx, tt.id, tt.header)
		if err != nil || r.Enabled != tt.want || r.Source != settings.SourceSession {
			t.Errorf("after restart %s = %+v, %v; want enabled %v from the session row", tt.id, r, err, tt.want)
		}
	}
}

func TestLegacyRows(t *testing.T) {
	ctx := context.Background()
	const legacy = `{"sessionId":"legacy","version":1,"consentedAt":42}`
	m := &settingstest.Memory{}
	m.Put(ns, `{"sessionContinuation":[`+legacy+`,{"sessionId":"old","version":1,"consentedAt":43}]}`, 2)
	p := policy(m, newClock(1000))
	r, err := p.Resolve(ctx, "legacy", nil)
	if err != nil || !r.Enabled || r.Source != settings.SourceSession {
		t.Fatalf("legacy row = %+v, %v; want on from the session", r, err)
	}
	off := false
	if _, _, err := p.Set(ctx, "old", nil, 2, &off); err != nil {
		t.Fatal(err)
	}
	raw, _ := m.Get(ns)
	if !strings.Contains(raw, legacy) {
		t.Errorf("the untouched legacy row changed: %s", raw)
	}
	if r, _ := p.Resolve(ctx, "old", nil); r.Enabled {
		t.Errorf("explicit off over a legacy row resolves on")
	}
}

package settings_test

import (
	"context"
	"errors"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/settings/settingstest"
)

func TestActivate(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		stored  string // "" = never written
		want    string // stored value after activation
		writes  int
		readErr error
		lie     func(hostapi.Namespace) hostapi.Namespace
		code    string
		cause   string
	}{
		{name: "first start writes the epoch", want: `{"continuationDefaultHistory":[{"enabled":true,"changedAt":7000}]}`, writes: 1},
		{name: "other keys kept", stored: `{"x":1}`, want: `{"continuationDefaultHistory":[{"enabled":true,"changedAt":7000}],"x":1}`, writes: 1},
		{name: "empty history is absent history", stored: `{"continuationDefaultHistory":[]}`,
			want: `{"continuationDefaultHistory":[{"enabled":true,"changedAt":7000}]}`, writes: 1},
		{name: "already activated", stored: `{"continuationDefaultHistory":[{"enabled":true,"changedAt":10}]}`,
			want: `{"continuationDefaultHistory":[{"enabled":true,"changedAt":10}]}`},
		{name: "user chose off before activation", stored: `{"continuationDefaultHistory":[{"enabled":false,"changedAt":10}]}`,
			want: `{"continuationDefaultHistory":[{"enabled":false,"changedAt":10}]}`},
		{name: "malformed history", stored: `{"continuationDefaultHistory":[{"enabled":true}]}`,
			want: `{"continuationDefaultHistory":[{"enabled":true}]}`, code: diag.InitializationFailed, cause: diag.SettingsInvalid},
		{name: "host unreachable", readErr: errors.New("connection reset"), want: `{}`,
			code: diag.InitializationFailed, cause: diag.SettingsUnavailable},
		{name: "readback lies", want: `{"continuationDefaultHistory":[{"enabled":true,"changedAt":7000}]}`, writes: 1,
			lie:  func(n hostapi.Namespace) hostapi.Namespace { n.Value = []byte(`{}`); return n },
			code: diag.InitializationFailed, cause: diag.CommitUncertain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &settingstest.Memory{DescribeErr: tt.readErr, Readback: tt.lie}
			if tt.stored != "" {
				m.Put(ns, tt.stored, 4)
			}
			err := policy(m, newClock(7000)).Activate(ctx)
			if tt.code == "" && err != nil {
				t.Fatalf("Activate: %v", err)
			}
			if tt.code != "" {
				wantCode(t, err, tt.code)
				var d *diag.Error
				errors.As(err, &d)
				if d.Data["cause"] != tt.cause {
					t.Errorf("cause = %v, want %s", d.Data["cause"], tt.cause)
				}
			}
			if got, _ := m.Get(ns); got != tt.want {
				t.Errorf("stored %s, want %s", got, tt.want)
			}
			if m.Mutates() != tt.writes {
				t.Errorf("%d writes, want %d", m.Mutates(), tt.writes)
			}
		})
	}
}

// TestActivateRace: a writer that keeps changing another key makes the first
// CAS attempts fail; Activate re-reads and still records the epoch once.
func TestActivateRace(t *testing.T) {
	m := &settingstest.Memory{}
	f := &flaky{Memory: m, conflicts: 2}
	if err := policy(f, newClock(7000)).Activate(context.Background()); err != nil {
		t.Fatalf("Activate: %v", err)
	}
	d, err := settings.NewPolicy(m).Defaults(context.Background())
	if err != nil || !d.Enabled || d.Revision != 3 {
		t.Fatalf("after the race: %+v, %v; want on at revision 3", d, err)
	}
	f = &flaky{Memory: &settingstest.Memory{}, conflicts: 100}
	err = policy(f, newClock(7000)).Activate(context.Background())
	wantCode(t, err, diag.InitializationFailed)
}

// flaky writes another key before each of its first conflicts mutations.
type flaky struct {
	*settingstest.Memory
	conflicts int
}

func (f *flaky) Mutate(ctx context.Context, ns string, ops []hostapi.Op, expected int64) (int64, error) {
	if f.conflicts > 0 {
		f.conflicts--
		if _, err := f.Memory.Mutate(ctx, ns, []hostapi.Op{{Op: "set", Path: []string{"x"}, Value: []byte(`1`)}}, expected); err != nil {
			return 0, err
		}
	}
	return f.Memory.Mutate(ctx, ns, ops, expected)
}

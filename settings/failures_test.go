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

// operations runs every Policy entry point against a store at revision rev.
func operations(ctx context.Context, p *settings.Policy, rev int64) map[string]error {
	on := true
	out := map[string]error{}
	_, out["Resolve"] = p.Resolve(ctx, "s1", born(9))
	_, _, out["Set"] = p.Set(ctx, "s1", nil, rev, &on)
	_, _, out["Set nil"] = p.Set(ctx, "s1", nil, rev, nil)
	_, out["Defaults"] = p.Defaults(ctx)
	_, _, out["SetDefault"] = p.SetDefault(ctx, rev, false)
	return out
}

func TestMalformedSettingsAreNeverOverwritten(t *testing.T) {
	ctx := context.Background()
	for _, stored := range []string{
		`[]`,
		`"text"`,
		`{"sessionContinuation":null}`,
		`{"sessionContinuation":{}}`,
		`{"sessionContinuation":[{"sessionId":"s1","version":1,"consentedAt":1,"fingerprint":"ab"}]}`,
		`{"sessionContinuation":[{"sessionId":"s1","version":1,"consentedAt":1},{"sessionId":"s1","version":1,"consentedAt":2}]}`,
		`{"sessionContinuation":[{"sessionId":"s\u0000","version":1,"consentedAt":1}]}`,
		`{"continuationDefaultHistory":[{"enabled":true,"changedAt":5},{"enabled":false,"changedAt":5}]}`,
		`{"continuationDefaultHistory":[{"enabled":"yes","changedAt":5}]}`,
		`{"continuationDefaultHistory":7}`,
		// Issue 18 #10: a member twice, at any depth, has no one meaning.
		`{"sessionContinuation":[],"sessionContinuation":[{"sessionId":"s1","version":1,"consentedAt":1}]}`,
		`{"sessionContinuation":[{"sessionId":"s1","version":1,"consentedAt":1,"consentedAt":2}]}`,
		`{"other":{"k":1,"k":2},"sessionContinuation":[]}`,
		`{"sessionContinuation":[{"sessionId":"s1","version":1,"consentedAt":1e1000001}]}`,
		// Issue 18 #9: a stored id with a lone surrogate is not another
		// session's id with U+FFFD.
		`{"sessionContinuation":[{"sessionId":"a\ud800","version":1,"consentedAt":1}]}`,
	} {
		t.Run(stored, func(t *testing.T) {
			m := &settingstest.Memory{}
			m.Put(ns, stored, 3)
			p := policy(m, newClock(100))
			for op, err := range operations(ctx, p, 3) {
				if !diag.Has(err, diag.SettingsInvalid) {
					t.Errorf("%s: err = %v, want SETTINGS_INVALID", op, err)
				}
			}
			wantCode(t, p.Activate(ctx), diag.InitializationFailed)
			if got, rev := m.Get(ns); got != stored || rev != 3 || m.Mutates() != 0 {
				t.Fatalf("stored document changed: %s at %d after %d writes", got, rev, m.Mutates())
			}
		})
	}
}

func TestMalformedFileIsNeverOverwritten(t *testing.T) {
	ctx := context.Background()
	for _, doc := range []string{``, `{`, `{"revision":1}`, `{"revision":-1,"value":{}}`, `{"revision":1,"value":[]}`,
		`{"revision":1.5,"value":{}}`, `{"revision":1,"value":{},"extra":0}`, `{"revision":1,"value":{}}{}`,
		// Issue 18 #10: duplicated members and invalid UTF-8 are malformed,
		// not a document to take one copy of and rewrite.
		`{"revision":1,"value":{},"value":{"sessionContinuation":[]}}`,
		`{"revision":1,"revision":1,"value":{}}`,
		`{"revision":1,"value":{"sessionContinuation":[],"sessionContinuation":[]}}`,
		`{"revision":1,"value":{"other":{"k":"a","k":"b"}}}`,
		"{\"revision\":1,\"value\":{\"other\":\"\xff\xfe\"}}",
	} {
		t.Run(doc, func(t *testing.T) {
			fs, path := fileStoreWith(t, doc)
			p := policy(fs, newClock(100))
			for op, err := range operations(ctx, p, 1) {
				if !diag.Has(err, diag.SettingsInvalid) {
					t.Errorf("%s: err = %v, want SETTINGS_INVALID", op, err)
				}
			}
			wantCode(t, p.Activate(ctx), diag.InitializationFailed)
			_, err := fs.Mutate(ctx, ns, []hostapi.Op{{Op: "set", Path: []string{"x"}, Value: []byte(`1`)}}, 1)
			wantCode(t, err, diag.SettingsInvalid)
			assertFile(t, path, doc)
		})
	}
}

func TestCommitUncertain(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		lie  func(hostapi.Namespace) hostapi.Namespace
	}{
		{"value differs", func(n hostapi.Namespace) hostapi.Namespace {
			n.Value = []byte(`{"sessionContinuation":[],"continuationDefaultHistory":[]}`)
			return n
		}},
		{"revision older", func(n hostapi.Namespace) hostapi.Namespace { n.Revision--; return n }},
		{"unreadable", func(n hostapi.Namespace) hostapi.Namespace { n.Value = []byte(`{"sessionContinuation":3}`); return n }},
		{"later revision without the change", func(n hostapi.Namespace) hostapi.Namespace {
			n.Revision++
			n.Value = []byte(`{}`)
			return n
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &settingstest.Memory{Readback: tt.lie}
			p := policy(m, newClock(100))
			on := true
			_, _, err := p.Set(ctx, "s1", nil, 0, &on)
			wantCode(t, err, diag.CommitUncertain)
			_, _, err = p.SetDefault(ctx, 1, false)
			wantCode(t, err, diag.CommitUncertain)
		})
	}
}

// TestReadbackAfterOtherWriters: when other writers have moved the
// namespace on before the readback, the write counts as committed as long
// as its own change is still in effect.
func TestReadbackAfterOtherWriters(t *testing.T) {
	ctx := context.Background()
	m := &settingstest.Memory{}
	m.Readback = func(n hostapi.Namespace) hostapi.Namespace {
		// Another writer appended a row for another session meanwhile.
		v, _ := settings.ApplyOps(n.Value, []hostapi.Op{{Op: "set", Path: []string{"x"}, Value: []byte(`1`)}})
		n.Value, n.Revision = v, n.Revision+5
		return n
	}
	on := true
	r, wrote, err := policy(m, newClock(100)).Set(ctx, "s1", nil, 0, &on)
	if err != nil || !wrote || !r.Enabled || r.Revision != 6 {
		t.Fatalf("Set = %+v, %v, %v; want on at the later revision 6", r, wrote, err)
	}
	d, _, err := policy(m, newClock(100)).SetDefault(ctx, 1, false)
	if err != nil || d.Enabled || d.Revision != 7 {
		t.Fatalf("SetDefault = %+v, %v; want off at revision 7", d, err)
	}
}

func TestSettingsUnavailable(t *testing.T) {
	ctx := context.Background()
	host := errors.New("host went away")
	busy := diag.New("agent-busy", "busy") // a host code that is not a conflict
	for _, tt := range []struct {
		name string
		m    *settingstest.Memory
	}{
		{"describe fails", &settingstest.Memory{DescribeErr: host}},
		{"mutate fails", &settingstest.Memory{MutateErr: host}},
		{"mutate fails with another host code", &settingstest.Memory{MutateErr: busy}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for op, err := range operations(ctx, policy(tt.m, newClock(1)), 0) {
				if tt.m.DescribeErr == nil && (op == "Resolve" || op == "Defaults" || op == "Set nil") {
					if err != nil {
						t.Errorf("%s: %v", op, err)
					}
					continue
				}
				if !diag.Has(err, diag.SettingsUnavailable) {
					t.Errorf("%s: err = %v, want SETTINGS_UNAVAILABLE", op, err)
				}
			}
		})
	}
}

// TestLostReplyIsUncertain: a write the store reports as failed may still
// have landed. The read-back tells the two apart: a namespace that moved
// on is COMMIT_UNCERTAIN (never "unavailable", which would tell the client
// nothing was written); one still at the base revision is
// SETTINGS_UNAVAILABLE (TestSettingsUnavailable).
func TestLostReplyIsUncertain(t *testing.T) {
	ctx := context.Background()
	m := &settingstest.Memory{LoseReply: errors.New("reply lost")}
	p := policy(m, newClock(100))
	on := true
	_, _, err := p.Set(ctx, "s1", nil, 0, &on)
	wantCode(t, err, diag.CommitUncertain)
	if _, rev := m.Get(ns); rev != 1 {
		t.Fatalf("revision %d: the write should have landed", rev)
	}
	_, _, err = p.SetDefault(ctx, 1, false)
	wantCode(t, err, diag.CommitUncertain)

	fresh := &settingstest.Memory{LoseReply: errors.New("reply lost")}
	err = policy(fresh, newClock(100)).Activate(ctx)
	wantCode(t, err, diag.InitializationFailed)
	if cause := err.(*diag.Error).Data["cause"]; cause != diag.CommitUncertain {
		t.Fatalf("activation cause %v, want %s", cause, diag.CommitUncertain)
	}
}

package remote

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
)

func TestGetAndSet(t *testing.T) {
	r := newRig(t)
	steps := []struct {
		name, method, args, want string
		events                   []string
	}{
		{"fresh session defaults on", "get", `{"agentId":"fresh"}`,
			`{"ok":true,"value":{"enabled":true,"revision":1,"source":"default"}}`, nil},
		{"old session defaults off", "get", `{"agentId":"old"}`,
			`{"ok":true,"value":{"enabled":false,"revision":1,"source":"default"}}`, nil},
		{"seeded defaults off", "get", `{"agentId":"seeded"}`,
			`{"ok":true,"value":{"enabled":false,"revision":1,"source":"default"}}`, nil},
		{"fork defaults off", "get", `{"agentId":"fork"}`,
			`{"ok":true,"value":{"enabled":false,"revision":1,"source":"default"}}`, nil},
		{"set off", "set", `{"agentId":"fresh","revision":1,"enabled":false}`,
			`{"ok":true,"value":{"enabled":false,"revision":2,"source":"session"}}`,
			[]string{`[{"agentId":"fresh","enabled":false,"revision":2,"source":"session"}]`}},
		{"set the same again writes nothing", "set", `{"agentId":"fresh","revision":2,"enabled":false}`,
			`{"ok":true,"value":{"enabled":false,"revision":2,"source":"session"}}`, nil},
		{"stale revision", "set", `{"agentId":"fresh","revision":1,"enabled":true}`,
			`{"ok":false,"error":{"code":"COPILOT_CONTINUATION_CONFLICT","message":"settings namespace \"github-copilot\" changed since it was read (expected revision 1, now 2)","details":{"actual":2,"expected":1}}}`, nil},
		{"enable a fork explicitly", "set", `{"agentId":"fork","revision":2,"enabled":true}`,
			`{"ok":true,"value":{"enabled":true,"revision":3,"source":"session"}}`,
			[]string{`[{"agentId":"fork","enabled":true,"revision":3,"source":"session"}]`}},
		{"null returns to the default", "set", `{"agentId":"fresh","revision":3,"enabled":null}`,
			`{"ok":true,"value":{"enabled":true,"revision":4,"source":"default"}}`,
			[]string{`[{"agentId":"fresh","enabled":true,"revision":4,"source":"default"}]`}},
		{"null without a row writes nothing", "set", `{"agentId":"old","revision":4,"enabled":null}`,
			`{"ok":true,"value":{"enabled":false,"revision":4,"source":"default"}}`, nil},
		{"get after", "get", `{"agentId":"fork"}`,
			`{"ok":true,"value":{"enabled":true,"revision":4,"source":"session"}}`, nil},
	}
	for _, s := range steps {
		if got := r.call(s.method, s.args); got != s.want {
			t.Fatalf("%s: %s\n got %s\nwant %s", s.name, s.args, got, s.want)
		}
		if ev := r.emit.take(); fmt.Sprint(ev) != fmt.Sprint(s.events) {
			t.Fatalf("%s: events %v, want %v", s.name, ev, s.events)
		}
	}
}

func TestDefaultsAffectOnlyLaterSessions(t *testing.T) {
	r := newRig(t)
	if got := r.call("defaults", ``); got != `{"ok":true,"value":{"enabled":true,"revision":1}}` {
		t.Fatalf("defaults = %s", got)
	}
	*r.clock = epoch + 100
	if got := r.call("setDefault", `{"revision":1,"enabled":false}`); got != `{"ok":true,"value":{"enabled":false,"revision":2}}` {
		t.Fatalf("setDefault = %s", got)
	}
	if ev := r.emit.take(); fmt.Sprint(ev) != `[[{"defaults":{"enabled":false,"revision":2}}]]` {
		t.Fatalf("events %v", ev)
	}
	r.agents.sessions["later"] = born(epoch + 200)
	for id, want := range map[string]bool{"fresh": true, "later": false} {
		if got := r.call("get", `{"agentId":"`+id+`"}`); !strings.Contains(got, fmt.Sprintf(`"enabled":%v`, want)) {
			t.Errorf("%s = %s, want enabled %v", id, got, want)
		}
	}
	if got := r.call("setDefault", `{"revision":2,"enabled":false}`); got != `{"ok":true,"value":{"enabled":false,"revision":2}}` || len(r.emit.take()) != 0 {
		t.Fatalf("repeated setDefault = %s", got)
	}
	if got := r.call("setDefault", `{"revision":1,"enabled":true}`); !strings.Contains(got, `"code":"COPILOT_CONTINUATION_CONFLICT"`) {
		t.Fatalf("stale setDefault = %s", got)
	}
	if got := r.call("defaults", `null`); got != `{"ok":true,"value":{"enabled":false,"revision":2}}` {
		t.Fatalf("defaults = %s", got)
	}
}

func TestViewShowsTurnState(t *testing.T) {
	r := newRig(t)
	r.turnState.active["fresh"] = false // the running turn captured off
	r.turnState.compaction["fresh"] = [2]string{"cmp-1", "running"}
	want := `{"ok":true,"value":{"enabled":true,"revision":1,"source":"default","activeTurnEnabled":false,"compaction":{"id":"cmp-1","state":"running"}}}`
	if got := r.call("get", `{"agentId":"fresh"}`); got != want {
		t.Fatalf("get = %s\nwant %s", got, want)
	}
	delete(r.turnState.active, "fresh")
	r.turnState.compaction["fresh"] = [2]string{"cmp-1", "completed"}
	want = `{"ok":true,"value":{"enabled":true,"revision":1,"source":"default","compaction":{"id":"cmp-1","state":"completed"}}}`
	if got := r.call("get", `{"agentId":"fresh"}`); got != want {
		t.Fatalf("get = %s\nwant %s", got, want)
	}
	r.turnState.compaction["fresh"] = [2]string{"cmp-2", "unknown"}
	want = `{"ok":true,"value":{"enabled":true,"revision":1,"source":"default"}}`
	if got := r.call("get", `{"agentId":"fresh"}`); got != want {
		t.Fatalf("get with an unknown bracket = %s\nwant %s", got, want)
	}
}

func TestDomainFailuresCarryTheirCode(t *testing.T) {
	r := newRig(t)
	raw, rev := r.store.Get(settings.Namespace)
	r.store.Put(settings.Namespace, strings.Replace(raw, `"enabled":true`, `"enabled":"yes"`, 1), rev)
	for _, c := range [][2]string{{"get", `{"agentId":"fresh"}`}, {"set", `{"agentId":"fresh","revision":1,"enabled":true}`},
		{"defaults", `{}`}, {"setDefault", `{"revision":1,"enabled":false}`}, {"authorizeNext", `{"agentId":"fresh","revision":1,"enabled":true}`}} {
		if got := r.call(c[0], c[1]); !strings.HasPrefix(got, `{"ok":false,"error":{"code":"COPILOT_CONTINUATION_SETTINGS_INVALID"`) {
			t.Errorf("%s = %s", c[0], got)
		}
	}
	if got, _ := r.store.Get(settings.Namespace); !strings.Contains(got, `"yes"`) {
		t.Fatal("malformed settings were overwritten")
	}
}

func TestSessionRowLimitThroughTheRemote(t *testing.T) {
	r := newRig(t)
	rows := make([]settings.Row, settings.MaxRows)
	for i := range rows {
		rows[i] = settings.Row{SessionID: fmt.Sprintf("s%d", i), Version: 1, ConsentedAt: 1}
	}
	b, _ := json.Marshal(rows)
	r.store.Put(settings.Namespace, `{"continuationDefaultHistory":[{"enabled":true,"changedAt":10000}],"sessionContinuation":`+string(b)+`}`, 9)
	got := r.call("set", `{"agentId":"fresh","revision":9,"enabled":true}`)
	if !strings.HasPrefix(got, `{"ok":false,"error":{"code":"COPILOT_CONTINUATION_SETTINGS_LIMIT"`) {
		t.Fatalf("2,049th row = %s", got)
	}
}

func born(ms int64) *hostapi.SessionHeader { return &hostapi.SessionHeader{CreatedAt: &ms} }

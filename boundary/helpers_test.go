package boundary

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/sqlstore"
)

var epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// clock returns a Now that advances one second per call.
func clock() func() time.Time {
	var mu sync.Mutex
	t := epoch
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

func openDB(t testing.TB, dir string) *sql.DB {
	t.Helper()
	db, err := sqlstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newService(t *testing.T, db *sql.DB, opts Options) *Service {
	t.Helper()
	if opts.Now == nil {
		opts.Now = clock()
	}
	s, err := Open(context.Background(), db, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ev(seq int64, typ string, data any) hostapi.Event {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	return hostapi.Event{Type: typ, Seq: seq, Time: json.RawMessage(`"2025-03-01T12:00:00Z"`), Data: b}
}

func created(seq int64) hostapi.Event { return ev(seq, EventSessionCreated, map[string]any{}) }

func user(seq int64, text string) hostapi.Event {
	return ev(seq, EventUserMessage, map[string]any{"text": text})
}

func checkpoint(seq int64, id, text string) hostapi.Event {
	return ev(seq, EventUserMessage, map[string]any{"text": text,
		"source": map[string]any{"kind": "compact-checkpoint", "compactionId": id}})
}

type ann struct{ kind, subject, text string }

func assistant(seq int64, text string, anns ...ann) hostapi.Event {
	data := map[string]any{"text": text}
	if len(anns) > 0 {
		var list []map[string]any
		for _, a := range anns {
			list = append(list, map[string]any{"kind": a.kind, "subject": a.subject, "text": a.text})
		}
		data["annotations"] = list
	}
	return ev(seq, EventAssistantMessage, data)
}

func testRun(seq int64, subject string, passed bool, summary string, outputChars int) hostapi.Event {
	return ev(seq, EventToolResult, map[string]any{"callId": "call_" + eventID(seq), "isError": !passed,
		"name": "go_test", "kind": "test", "subject": subject, "passed": passed, "summary": summary,
		"output": strings.Repeat("x", outputChars)})
}

func toolOut(seq int64, name string, isError bool, output string) hostapi.Event {
	return ev(seq, EventToolResult, map[string]any{"callId": "call_" + eventID(seq), "isError": isError,
		"name": name, "output": output})
}

func usage(seq int64, in, window int64) hostapi.Event {
	return ev(seq, EventUsage, map[string]any{"inputTokens": in, "contextWindow": window})
}

func turnEnd(seq int64, turn int) hostapi.Event {
	return ev(seq, "turn/end", map[string]any{"turn": turn, "reason": "completed"})
}

// refs renders kept or dropped items as "kind:subject:why" for comparisons.
func refs(list []ItemRef) []string {
	out := make([]string, 0, len(list))
	for _, r := range list {
		out = append(out, string(r.Kind)+":"+r.Subject+":"+r.Why+"@"+r.EventID)
	}
	return out
}

func contains(list []string, want string) bool {
	for _, l := range list {
		if l == want {
			return true
		}
	}
	return false
}

// fakeSessions is a hostapi.Sessions double over a fixed event list.
type fakeSessions struct {
	events []hostapi.Event
	reads  int
}

func (f *fakeSessions) Create(context.Context, hostapi.CreateSession) (hostapi.Created, error) {
	return hostapi.Created{}, nil
}

func (f *fakeSessions) Read(_ context.Context, _ string, from, to int64) (hostapi.Events, error) {
	f.reads++
	var out []hostapi.Event
	for _, e := range f.events {
		if e.Seq >= from && e.Seq <= to {
			out = append(out, e)
		}
	}
	return hostapi.Events{Events: out, Complete: true}, nil
}

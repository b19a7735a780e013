package boundary

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/sqlstore"
)

// TestRecordsStableAcrossReopen decides several boundaries, closes the
// database, reopens it in a new service (a restart) and reads the same
// records through the Remote; the pin survives and keeps verifying.
func TestRecordsStableAcrossReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db1, err := sqlstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s1 := newService(t, db1, Options{})
	var last Decision
	for _, st := range []step{firstTurn,
		{events: []hostapi.Event{testRun(5, "pkg/parse", true, "ok", 10), assistant(6, "", ann{"next_action", "pkg/parse", "Open a PR"})}, decide: TurnEnd},
		{events: []hostapi.Event{assistant(7, "Waiting for review.")}, decide: TurnEnd},
	} {
		last = runStep(t, s1, db1, st, last)
	}
	before, err := s1.Decided(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	beforeJSON, _ := json.Marshal(before)
	db1.Close()

	db2 := openDB(t, dir)
	s2 := newService(t, db2, Options{})
	after, err := s2.Decided(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	afterJSON, _ := json.Marshal(after)
	if string(beforeJSON) != string(afterJSON) {
		t.Errorf("the record changed across a restart:\n%s\n%s", beforeJSON, afterJSON)
	}
	if after.ID != last.ID || after.Reason != ReasonNoNewWitness {
		t.Errorf("latest record %d/%s, want %d/no_new_witness", after.ID, after.Reason, last.ID)
	}
	checkRecordSchema(t, after)

	// The restarted service sees only later events and has no Sessions: the
	// pin and the witnesses come from the store, and the view is partial.
	s2.Observe(sid, testRun(9, "pkg/lex", true, "ok", 10))
	s2.Observe(sid, assistant(10, "", ann{"next_action", "pkg/parse", "Merge the PR"}))
	d, err := s2.Decide(ctx, sid, TurnEnd)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Pin.Recoverable || *d.Pin.Digest != *last.Pin.Digest || d.ViewComplete {
		t.Errorf("after restart: pin %+v viewComplete %v, want the same verified pin and a partial view", d.Pin, d.ViewComplete)
	}
	if !contains(refs(d.Kept), "test:pkg/parse:stable@5") {
		t.Errorf("a stored witness was lost across the restart: kept %v", refs(d.Kept))
	}
	if d.Decision != Append || d.Reason != ReasonTaskSharpened {
		t.Errorf("after restart: %s/%s, want APPEND/task_sharpened", d.Decision, d.Reason)
	}
}

// TestBackfillFromHost re-reads the part of a session the service did not
// see, so the default pin comes from the host's exact first message.
func TestBackfillFromHost(t *testing.T) {
	ctx := context.Background()
	host := &fakeSessions{events: append(append([]hostapi.Event{}, firstTurn.events...),
		testRun(5, "pkg/parse", true, "ok", 10))}
	s := newService(t, openDB(t, t.TempDir()), Options{Sessions: host})
	s.Observe(sid, assistant(6, "", ann{"next_action", "pkg/parse", "Open a PR"}))
	d, err := s.Decide(ctx, sid, TurnEnd)
	if err != nil {
		t.Fatal(err)
	}
	if host.reads != 1 || !d.ViewComplete || !d.Pin.Recoverable || *d.Pin.Digest != Digest(2, parseTask) {
		t.Fatalf("reads %d viewComplete %v pin %+v", host.reads, d.ViewComplete, d.Pin)
	}
	if !contains(refs(d.Kept), "test:pkg/parse:stable@5") || !contains(refs(d.Dropped), "narration::narration@3") {
		t.Errorf("the re-read events are not in the view: kept %v dropped %v", refs(d.Kept), refs(d.Dropped))
	}
	if _, err := s.Decide(ctx, sid, TurnEnd); err != nil || host.reads != 1 {
		t.Errorf("a complete view is re-read again (reads %d, err %v)", host.reads, err)
	}
}

// TestHostDisagreesWithPin: after a restart the host's first user message
// is not the pinned one, so the pin is reported changed, not trusted.
func TestHostDisagreesWithPin(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	runStep(t, newService(t, db, Options{}), db, firstTurn, Decision{})
	host := &fakeSessions{events: []hostapi.Event{created(1), user(2, "A different task altogether.")}}
	s := newService(t, db, Options{Sessions: host})
	s.Observe(sid, assistant(5, "Continuing."))
	d, err := s.Decide(ctx, sid, TurnEnd)
	if err != nil {
		t.Fatal(err)
	}
	if d.Reason != ReasonPinChanged || d.Pin.Problem != PinProblemEventMismatch || d.Reseed.Complete {
		t.Errorf("decision %s pin %+v, want pin_changed/event_mismatch and no projection", d.Reason, d.Pin)
	}
}

// TestPinTaskSurvivesRestart: a pin_task before a restart still makes the
// first boundary after it reseed with task_changed.
func TestPinTaskSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	s1 := newService(t, db, Options{})
	runStep(t, s1, db, firstTurn, Decision{})
	s1.Observe(sid, user(5, "New plan: write the exporter."))
	if _, err := s1.PinTask(ctx, sid, 0, "Write the exporter.", "the user changed the task"); err != nil {
		t.Fatal(err)
	}
	s2 := newService(t, db, Options{})
	s2.Observe(sid, assistant(6, "", ann{"next_action", "exporter", "Create exporter.go"}))
	d, err := s2.Decide(ctx, sid, TurnEnd)
	if err != nil {
		t.Fatal(err)
	}
	if d.Reason != ReasonTaskChanged || *d.Pin.Digest != Digest(5, "Write the exporter.") || !d.Reseed.Complete {
		t.Errorf("decision %s pin %+v reseed %+v", d.Reason, d.Pin, d.Reseed)
	}
	d, err = s2.Decide(ctx, sid, TurnEnd)
	if err != nil || d.Reason == ReasonTaskChanged {
		t.Errorf("the task change is reported twice: %s %v", d.Reason, err)
	}
}

// TestInheritPin carries a verified pin into a successor session.
func TestInheritPin(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	s := newService(t, db, Options{})
	a := runStep(t, s, db, firstTurn, Decision{})
	p, err := s.InheritPin(ctx, "session-b", sid)
	if err != nil {
		t.Fatal(err)
	}
	if p.Digest != *a.Pin.Digest || p.Source != SourceInherited || p.OriginSession != sid {
		t.Fatalf("inherited %+v", p)
	}
	s.Observe("session-b", created(1))
	s.Observe("session-b", user(2, "Continue the parser fix from the handoff."))
	s.Observe("session-b", assistant(3, "", ann{"next_action", "pkg/parse", "Run go test ./pkg/parse"}))
	d, err := s.Decide(ctx, "session-b", TurnEnd)
	if err != nil {
		t.Fatal(err)
	}
	if *d.Pin.Digest != p.Digest || d.Pin.OriginSession != sid || d.Reason == ReasonTaskChanged || d.Decision != Append {
		t.Errorf("successor decision %s/%s pin %+v", d.Decision, d.Reason, d.Pin)
	}
	// The successor replaces its task; a replayed continue_session inherits
	// again, and must leave the successor's own pin in place.
	own, err := s.PinTask(ctx, "session-b", 2, "Write the CSV exporter.", "the user changed the task")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.InheritPin(ctx, "session-b", sid); err != nil || again.Digest != own.Digest || again.Source != SourcePinTask {
		t.Errorf("a second inheritance gave %+v, %v; want the successor's own pin %s", again, err, own.Digest)
	}
	if _, err := s.InheritPin(ctx, "session-c", "session-without-pin"); !diag.Has(err, diag.PinUnrecoverable) {
		t.Errorf("inheriting a missing pin: %v", err)
	}
}

// TestDisposeKeepsWitnesses: disposing a session forgets its view but stores
// its pending witnesses first.
func TestDisposeKeepsWitnesses(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	s := newService(t, db, Options{})
	runStep(t, s, db, firstTurn, Decision{})
	s.Observe(sid, testRun(5, "pkg/parse", true, "ok", 10))
	if err := s.Dispose(ctx, sid); err != nil {
		t.Fatal(err)
	}
	d, err := s.Decide(ctx, sid, TurnEnd)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(refs(d.Kept), "test:pkg/parse:stable@5") || d.ViewComplete {
		t.Errorf("after dispose: kept %v viewComplete %v", refs(d.Kept), d.ViewComplete)
	}
}

package server

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/remote"
	"github.com/continuity-dev/continuity/wire"
)

// TestExitDeadlineLogsRequestsLeft: a request whose handler ignores its
// cancellation is still running when the exit deadline passes; wait
// returns at the deadline and logs how many requests were left and their
// methods.
func TestExitDeadlineLogsRequestsLeft(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	log := zap.New(core)
	inR, inW := io.Pipe()
	started, release := make(chan struct{}, 2), make(chan struct{})
	stuck := func(context.Context, struct{}) (any, error) {
		started <- struct{}{}
		<-release // the mistake under test: the handler ignores ctx
		return struct{}{}, nil
	}
	anything := func(*wire.Params) (struct{}, error) { return struct{}{}, nil }
	d := &dispatcher{log: log, base: context.Background(), inflight: map[string]*inflight{}}
	d.methods = map[string]method{
		"tool/call":     request(anything, stuck).entry(early),
		"remote/invoke": request(anything, stuck).entry(early),
	}
	conn := wire.NewConn(wire.Config{In: inR, Out: io.Discard, Log: log}, d)
	d.stream = conn
	conn.Start()
	defer conn.Close()
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tool/call","params":{}}`+"\n"+
			`{"jsonrpc":"2.0","id":2,"method":"remote/invoke","params":{}}`+"\n")
	}()
	<-started
	<-started
	d.cancelAll(errInputEnded)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	begun := time.Now()
	d.wait(ctx)
	if waited := time.Since(begun); waited > time.Second {
		t.Fatalf("wait returned after %v, not at the deadline", waited)
	}
	entries := logs.FilterMessage("requests still running at the exit deadline").All()
	if len(entries) != 1 {
		t.Fatalf("want one exit-deadline line, got %v", logs.All())
	}
	fields := entries[0].ContextMap()
	if fields["count"] != int64(2) {
		t.Errorf("count = %v, want 2", fields["count"])
	}
	if m, _ := json.Marshal(fields["methods"]); string(m) != `["remote/invoke","tool/call"]` {
		t.Errorf("methods = %s", m)
	}
	close(release)
	done, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	d.wait(done)
	if n := logs.FilterMessage("requests still running at the exit deadline").Len(); n != 1 {
		t.Errorf("a wait that finished logged the deadline line too (%d lines)", n)
	}
}

// TestClosedStoreRefusesLateUsers: once services close, a store-backed
// Remote arriving late answers STORAGE_UNAVAILABLE, and a call already past
// that check when the database closed gets its feature's store-failure
// code; callers racing the close get a success or one of those codes,
// never a panic.
func TestClosedStoreRefusesLateUsers(t *testing.T) {
	ctx := context.Background()
	s := &Server{log: zap.NewNop(), base: ctx, cfg: Config{Now: time.Now}}
	svc := &services{log: s.log}
	if err := svc.openStore(ctx, s, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	svc.continuity = remote.NewContinuity(svc.continuityFeatures())
	args := json.RawMessage(`{"agentId":"s1"}`)
	var wg sync.WaitGroup
	racing := make(chan string, 64)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 8 {
				env, _ := svc.continuityRemote(ctx, "lineage", args).(remote.Envelope)
				switch {
				case env.OK:
				case env.Error != nil && (env.Error.Code == diag.StorageUnavailable || env.Error.Code == diag.StoreFailed):
				default:
					racing <- env.Error.Code
				}
			}
		}()
	}
	svc.close(ctx)
	wg.Wait()
	close(racing)
	for code := range racing {
		t.Errorf("a call racing the close answered %q", code)
	}

	env, _ := svc.continuityRemote(ctx, "boundary", args).(remote.Envelope)
	if env.OK || env.Error == nil || env.Error.Code != diag.StorageUnavailable {
		t.Errorf("late boundary Remote: %+v", env)
	}
	if _, err := svc.cont.Lineage(ctx, "s1"); !diag.Has(err, diag.StoreFailed) {
		t.Errorf("lineage on the closed database: %v, want %s", err, diag.StoreFailed)
	}
	if _, err := svc.boundary.Decided(ctx, "s1"); !diag.Has(err, diag.BoundaryStoreFailed) {
		t.Errorf("boundary on the closed database: %v, want %s", err, diag.BoundaryStoreFailed)
	}
}

package server

import (
	"context"
	"io"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/continuity-dev/continuity/continuation"
	"github.com/continuity-dev/continuity/wire"
)

// TestInheritPinLogsWhyNot: a continuation whose edge cannot be read
// leaves the successor without the predecessor's pin, and says so in the
// log with the edge id, instead of dropping the error.
func TestInheritPinLogsWhyNot(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	ctx := context.Background()
	s := &Server{log: zap.New(core), base: ctx, cfg: Config{Now: time.Now}}
	svc := &services{log: s.log}
	if err := svc.openStore(ctx, s, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	defer svc.close(ctx)
	res := continuation.ToolResult{Structured: continuation.ContinueResult{SuccessorID: "s2", EdgeID: "continuation-none"}}
	svc.inheritPin(ctx, res)
	entries := logs.FilterMessage("pin not inherited: the edge cannot be read").All()
	if len(entries) != 1 || entries[0].ContextMap()["edge"] != "continuation-none" {
		t.Fatalf("log %v", logs.All())
	}
}

// TestHostNotifyFailureIsLogged: a notification the connection cannot send
// is logged with its method, since the features that emit treat the loss
// as recoverable and report it nowhere else.
func TestHostNotifyFailureIsLogged(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	inR, inW := io.Pipe()
	defer inW.Close() // ends the connection's read loop
	conn := wire.NewConn(wire.Config{In: inR, Out: io.Discard}, wire.HandlerFunc(func(r wire.Request) { r.Params.Release() }))
	conn.Start()
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	h := &hostCaller{conn: conn, log: zap.New(core)}
	if err := h.Notify(context.Background(), "remote/event", map[string]any{"event": "continuity.notice"}); err == nil {
		t.Fatal("a notification on a closed connection succeeded")
	}
	entries := logs.FilterMessage("notification not sent to the host").All()
	if len(entries) != 1 || entries[0].ContextMap()["method"] != "remote/event" {
		t.Fatalf("log %v", logs.All())
	}
}

package server

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/internal/syncbuf"
	"github.com/continuity-dev/continuity/wire"
)

// TestBorrowingHandlerThatKeepsItsParamsIsCaught: a borrowing handler
// (like llm/payload) that keeps its *wire.Params past its reply — here it
// hands them to a goroutine that reads them later — is caught where it
// reads them: once the dispatcher has written the reply it releases the
// params, and Bytes panics instead of returning a buffer that a later
// frame may already fill.
func TestBorrowingHandlerThatKeepsItsParamsIsCaught(t *testing.T) {
	inR, inW := io.Pipe()
	var out syncbuf.Buffer
	kept := make(chan *wire.Params, 1)
	d := &dispatcher{log: zap.NewNop(), base: context.Background(), inflight: map[string]*inflight{}}
	frame := func(p *wire.Params) (*wire.Params, error) { return p, nil }
	d.methods = map[string]method{"leaky": request(frame, func(_ context.Context, p *wire.Params) (any, error) {
		kept <- p // the mistake: the params outlive the reply
		return struct{}{}, nil
	}).entry(early | borrows)}
	conn := wire.NewConn(wire.Config{In: inR, Out: &out}, d)
	d.stream = conn
	conn.Start()
	defer conn.Close()
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"leaky","params":{"p":"`+strings.Repeat("a", 1<<20)+`"}}`+"\n")
	}()
	p := <-kept
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d.wait(ctx) // the reply is written and the params released
	if !strings.Contains(out.String(), `"id":1,"result":{}`) {
		t.Fatalf("reply %q", out.String())
	}
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("params read after their reply did not panic")
		}
	}()
	_ = p.Bytes()
}

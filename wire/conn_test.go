package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// lockedBuffer collects what a Conn writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestNoFrameIsDispatchedAfterClose: once Close has returned, the handler
// is never called again, neither for a frame the read loop was already
// waiting for nor for any later one, and nothing is written for them; the
// loop reads the rest of the input only to drop it, so the host's writes
// do not block.
func TestNoFrameIsDispatchedAfterClose(t *testing.T) {
	inR, inW := io.Pipe()
	var out lockedBuffer
	var conn *Conn
	var mu sync.Mutex
	var seen []string
	handled := make(chan struct{}, 8)
	conn = NewConn(Config{In: inR, Out: &out}, HandlerFunc(func(r Request) {
		mu.Lock()
		seen = append(seen, r.Method)
		mu.Unlock()
		if r.IsCall() {
			_ = conn.Reply(r.ID, struct{}{})
		}
		r.Params.Release()
		handled <- struct{}{}
	}))
	conn.Start()
	write := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"jsonrpc":"2.0","id":1,"method":"before","params":{}}`)
	<-handled
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	// The loop was waiting in a read when Close returned: this frame
	// completes that read. Each write returns only once the loop has taken
	// its bytes, so the last one proves the ones before it were handled.
	write(`{"jsonrpc":"2.0","id":2,"method":"after","params":{}}`)
	write(`{"jsonrpc":"2.0","method":"afterNote","params":{}}`)
	write(`not json`)
	write(`{"jsonrpc":"2.0","id":3,"method":"last"}`)
	inW.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	<-conn.stopped
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "before" {
		t.Fatalf("handled %q, want only the frame before Close", seen)
	}
	if got := out.String(); got != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" {
		t.Fatalf("written %q, want only the reply before Close", got)
	}
	if held, _ := conn.InFlight(); held != 0 {
		t.Fatalf("%d bytes held after the dropped frames", held)
	}
}

// stuckPipe lets the first write through and holds every later one until
// the test ends: a host that read our request and then stopped reading.
type stuckPipe struct {
	mu      sync.Mutex
	writes  int
	first   chan struct{} // closed once the first write is through
	blocked chan struct{} // a later write is waiting
	release chan struct{}
}

func newStuckPipe() *stuckPipe {
	return &stuckPipe{first: make(chan struct{}), blocked: make(chan struct{}, 8), release: make(chan struct{})}
}

func (p *stuckPipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	p.writes++
	n := p.writes
	p.mu.Unlock()
	if n == 1 {
		close(p.first)
		return len(b), nil
	}
	p.blocked <- struct{}{}
	<-p.release
	return 0, errors.New("stuck pipe: closed")
}

// TestCancelledCallReturnsAtOnce: the caller of a call whose context ends
// gets its error without waiting for the $/cancelRequest to be written,
// while the host reads nothing; the cancellation's own write is still
// stuck when the caller already has its answer.
func TestCancelledCallReturnsAtOnce(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	out := newStuckPipe()
	conn := NewConn(Config{In: inR, Out: out}, HandlerFunc(func(r Request) { r.Params.Release() }))
	conn.Start()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Call(ctx, "session/read", map[string]string{"sessionId": "s"})
		errc <- err
	}()
	<-out.first // the request is on the wire; the host answers nothing
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v, want context.Canceled", err)
	}
	select {
	case <-out.blocked: // the cancellation is being written, and stuck
	case <-time.After(10 * time.Second):
		t.Fatal("no $/cancelRequest was attempted")
	}
	if c, _ := leftOver(conn.stream); c != 0 {
		t.Fatalf("%d calls still awaited after the caller gave up", c)
	}
	close(out.release)
	_ = conn.Close()
	wctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if err := conn.Wait(wctx); err != nil {
		t.Fatalf("Wait: %v (the cancellation's goroutine did not end)", err)
	}
}

// TestCancellationGivesUpWhenThePipeStaysBusy: a $/cancelRequest that
// cannot even start to be written — a reply holds the pipe for a host
// that does not read — gives up within cancelWithin with a line, instead
// of waiting as long as the host does.
func TestCancellationGivesUpWhenThePipeStaysBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core, logs := observer.New(zap.WarnLevel)
		inR, inW := io.Pipe()
		out := newStuckPipe()
		conn := NewConn(Config{In: inR, Out: out, Log: zap.New(core)}, HandlerFunc(func(r Request) { r.Params.Release() }))
		conn.Start()
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := conn.Call(ctx, "session/read", nil)
			errc <- err
		}()
		<-out.first
		id, _ := ParseID([]byte("1"))
		go func() { _ = conn.Reply(id, map[string]string{"big": strings.Repeat("x", 10)}) }()
		<-out.blocked // the reply holds the pipe
		start := time.Now()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("Call = %v", err)
		}
		synctest.Wait() // the cancellation waits for the pipe, on fake time
		time.Sleep(cancelWithin)
		synctest.Wait()
		if logs.FilterMessage("cancellation not sent to the host").Len() != 1 {
			t.Fatalf("log %v", logs.All())
		}
		if waited := time.Since(start); waited != cancelWithin {
			t.Fatalf("the cancellation gave up after %v, want %v", waited, cancelWithin)
		}
		close(out.release)
		inW.Close()
		_ = conn.Close()
		if err := conn.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

package wire

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestReadingStopsWhileRepliesBackUp: the host sends requests whose replies
// borrow their params, and does not read the replies. The Stream stops
// reading at its limit (the host's writes block), reads one more frame
// while a call of ours waits for its answer, and reads everything once the
// host reads again.
func TestReadingStopsWhileRepliesBackUp(t *testing.T) {
	const n = 40
	const limit = 2 << 20
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	core, logs := observer.New(zap.InfoLevel)
	s := NewStream(inR, outW, nil, 0, zap.New(core))
	s.budget = newBudget(limit, DefaultMaxFrameBytes)
	go func() {
		for i := range n {
			frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m","params":{"p":"%s"}}`+"\n", i, strings.Repeat("x", 200<<10))
			if _, err := io.WriteString(inW, frame); err != nil {
				return
			}
		}
		inW.Close()
	}()
	var read atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var v struct{ Method string }
			if s.ReadObject(&v) != nil {
				return
			}
			read.Add(1)
			in := s.takeRequest()
			go func() {
				r, _ := Object().Raw("echo", in.Params.Bytes()).Result()
				if err := s.Reply(in.ID, r); err != nil {
					t.Error(err)
				}
				in.Params.Release()
			}()
		}
	}()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting until %s (%d frames read)", what, read.Load())
			}
		}
	}
	waitFor("reading pauses", func() bool { return logs.FilterMessageSnippet("reading paused").Len() > 0 })
	time.Sleep(50 * time.Millisecond)
	paused := read.Load()
	held, peak := s.InFlight()
	t.Logf("paused after %d of %d frames, %d KiB held (peak %d KiB)", paused, n, held>>10, peak>>10)
	if paused >= n || held < limit || peak > limit+1<<20 {
		t.Fatalf("read %d of %d frames, %d bytes held (peak %d), limit %d", paused, n, held, peak, limit)
	}

	c := s.await("cty_1")
	c.markSent()
	waitFor("a frame is read for the awaited answer", func() bool { return read.Load() > paused })
	c.forget()

	go func() { _, _ = io.Copy(io.Discard, outR) }()
	<-done
	if read.Load() != n {
		t.Fatalf("%d of %d frames read once the host read again", read.Load(), n)
	}
	waitFor("nothing is held", func() bool { held, _ := s.InFlight(); return held == 0 })
}

// TestReadingStopsAtTheHardLimit: replies flow, but requests are slower
// than the host: reading stops once hard bytes are held, and goes on as
// they are released.
func TestReadingStopsAtTheHardLimit(t *testing.T) {
	var in strings.Builder
	const n = 12
	for i := range n {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"m","params":{"p":"%s"}}`+"\n", i, strings.Repeat("x", 200<<10))
	}
	s := NewStream(strings.NewReader(in.String()), io.Discard, nil, 0, nil)
	s.budget = newBudget(1<<20, 1<<20)
	s.budget.hard = 1 << 20 // four frames of 256 KiB
	var held []*Params
	read := make(chan *Params)
	go func() {
		defer close(read)
		for {
			var v struct{ Method string }
			if s.ReadObject(&v) != nil {
				return
			}
			read <- s.takeRequest().Params
		}
	}()
	for range 4 {
		held = append(held, <-read)
	}
	select {
	case p := <-read:
		t.Fatalf("a fifth frame was read with %d bytes held (%p)", s.budget.hard, p)
	case <-time.After(100 * time.Millisecond):
	}
	held[0].Release()
	held = append(held[1:], <-read)
	for _, p := range held {
		p.Release()
	}
	got := 5
	for p := range read {
		p.Release()
		got++
	}
	if got != n {
		t.Fatalf("%d of %d frames read", got, n)
	}
}

package wire

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestReadingStopsWhileRepliesBackUp: the host sends requests whose replies
// borrow their params, and does not read the replies. The Stream stops
// reading at its limit (the host's writes block), reads one more frame
// while a call of ours waits for its answer, and reads everything once the
// host reads again.
func TestReadingStopsWhileRepliesBackUp(t *testing.T) {
	// In a bubble, "every goroutine is blocked" is an event: the read
	// loop has stopped, not merely not read yet.
	synctest.Test(t, readingStopsWhileRepliesBackUp)
}

func readingStopsWhileRepliesBackUp(t *testing.T) {
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
	synctest.Wait() // the host's writes and the read loop are stuck
	if logs.FilterMessageSnippet("reading paused").Len() == 0 {
		t.Fatalf("reading did not pause (%d frames read)", read.Load())
	}
	paused := read.Load()
	held, peak := s.InFlight()
	t.Logf("paused after %d of %d frames, %d KiB held (peak %d KiB)", paused, n, held>>10, peak>>10)
	if paused >= n || held < limit || peak > limit+1<<20 {
		t.Fatalf("read %d of %d frames, %d bytes held (peak %d), limit %d", paused, n, held, peak, limit)
	}

	c := s.await("cty_1")
	c.markSent()
	synctest.Wait()
	if read.Load() <= paused {
		t.Fatal("no frame was read while a call of ours awaited its answer")
	}
	c.forget()

	go func() { _, _ = io.Copy(io.Discard, outR) }()
	<-done
	if read.Load() != n {
		t.Fatalf("%d of %d frames read once the host read again", read.Load(), n)
	}
	synctest.Wait() // the last replies are written and their params released
	if held, _ := s.InFlight(); held != 0 {
		t.Fatalf("%d bytes still held", held)
	}
	outR.Close()
}

// TestReadingStopsAtTheHardLimit: replies flow, but requests are slower
// than the host: reading stops once hard bytes are held, and goes on as
// they are released.
func TestReadingStopsAtTheHardLimit(t *testing.T) { synctest.Test(t, readingStopsAtTheHardLimit) }

func readingStopsAtTheHardLimit(t *testing.T) {
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
	synctest.Wait() // the read loop is stuck at the limit
	select {
	case p := <-read:
		t.Fatalf("a fifth frame was read with %d bytes held (%p)", s.budget.hard, p)
	default:
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

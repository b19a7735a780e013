package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/klauspost/compress/zstd"
)

// freeHolding is a holding on a budget nothing else uses.
func freeHolding() *holding {
	return &holding{b: newBudget(1<<40, time.Second), ctx: context.Background()}
}

// TestOpenPayloadSizes: a body is decoded into one buffer of its decoded
// size whether it declares the size (zstd with a content size, gzip),
// declares it short (two zstd frames, two gzip members, a lying ISIZE) or
// not at all (a streamed zstd frame); what it holds is charged; a body past
// the bound is refused by its declaration, unallocated.
func TestOpenPayloadSizes(t *testing.T) {
	plain := []byte(`{"input":[{"role":"user","content":"` + strings.Repeat("hello ", 50_000) + `"}]}`)
	half := len(plain) / 2
	enc, _ := zstd.NewWriter(nil)
	oneFrame := enc.EncodeAll(plain, nil)
	twoFrames := enc.EncodeAll(plain[half:], enc.EncodeAll(plain[:half], nil))
	var streamed bytes.Buffer
	zw, _ := zstd.NewWriter(&streamed)
	zw.Write(plain)
	zw.Close()
	gz := func(parts ...[]byte) []byte {
		var b bytes.Buffer
		for _, p := range parts {
			w := gzip.NewWriter(&b)
			w.Write(p)
			w.Close()
		}
		return b.Bytes()
	}
	lying := gz(plain)
	lying = append(lying[:len(lying)-4:len(lying)-4], 0xff, 0xff, 0xff, 0x00) // ISIZE 16 MiB
	for name, c := range map[string]struct {
		sent   []byte
		coding string
	}{
		"zstd one frame": {oneFrame, "zstd"}, "zstd two frames": {twoFrames, "zstd"}, "zstd streamed": {streamed.Bytes(), "zstd"},
		"gzip": {gz(plain), "gzip"}, "gzip two members": {gz(plain[:half], plain[half:]), "gzip"},
	} {
		h := freeHolding()
		pay, err := openPayload(c.sent, c.coding, maxDecodedBytes, h)
		if err != nil || !bytes.Equal(pay.plain, plain) {
			t.Fatalf("%s: %v", name, err)
		}
		if h.n < int64(len(plain)) || cap(pay.plain) > len(plain)+64 {
			t.Errorf("%s: charged %d, buffer %d, for %d bytes", name, h.n, cap(pay.plain), len(plain))
		}
		h.release()
		if _, err := openPayload(c.sent, c.coding, len(plain)-1, freeHolding()); !errors.Is(err, errDecodedTooLarge) {
			t.Errorf("%s past the bound: %v", name, err)
		}
	}
	// A gzip body whose ISIZE lies is refused by the gzip reader's check.
	if _, err := openPayload(lying, "gzip", maxDecodedBytes, freeHolding()); !errors.Is(err, errUndecodable) {
		t.Fatalf("a lying ISIZE: %v", err)
	}
	// Declared past the bound: refused before anything is charged.
	h := freeHolding()
	if _, err := openPayload(oneFrame, "zstd", len(plain)-1, h); !errors.Is(err, errDecodedTooLarge) || h.n != 0 {
		t.Fatalf("declared past the bound: %v, %d charged", err, h.n)
	}
	// A body larger than the whole budget is refused, not waited for.
	small := &holding{b: newBudget(int64(len(plain))/2, time.Minute), ctx: context.Background()}
	if _, err := openPayload(oneFrame, "zstd", maxDecodedBytes, small); !errors.Is(err, errOverBudget) {
		t.Fatalf("over the budget: %v", err)
	}
}

// TestBudget: charges up to the total are granted at once; one that does
// not fit waits until a release makes room, first come first served, or
// gives up after the wait; one larger than the total is refused at once.
// It runs in a synctest bubble: the wait is the bubble's clock, and the
// release comes once the waiter is blocked on its grant.
func TestBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBudget(100, 200*time.Millisecond)
		ctx := context.Background()
		if err := b.acquire(ctx, 60); err != nil {
			t.Fatal(err)
		}
		if err := b.acquire(ctx, 101); !errors.Is(err, errOverBudget) {
			t.Fatalf("larger than the total: %v", err)
		}
		start := time.Now()
		if err := b.acquire(ctx, 50); !errors.Is(err, errBudgetBusy) || time.Since(start) != 200*time.Millisecond {
			t.Fatalf("no room: %v after %s", err, time.Since(start))
		}
		granted := make(chan error, 1)
		go func() { granted <- b.acquire(ctx, 50) }() // owned by this test: it ends with the grant below
		synctest.Wait()
		b.mu.Lock()
		waiting := len(b.waiters)
		b.mu.Unlock()
		if waiting != 1 {
			t.Fatalf("%d waiting for the budget, want the one that does not fit", waiting)
		}
		b.release(60)
		if err := <-granted; err != nil {
			t.Fatalf("after a release: %v", err)
		}
		b.release(50)
		if b.used != 0 || b.peak != 60 || len(b.waiters) != 0 {
			t.Fatalf("used %d, peak %d, %d waiting", b.used, b.peak, len(b.waiters))
		}
	})
	b := newBudget(100, 200*time.Millisecond)
	ctx := context.Background()
	// A holding that would pass the total alone is refused.
	h := &holding{b: b, ctx: ctx}
	if err := h.take(70); err != nil {
		t.Fatal(err)
	}
	if err := h.take(40); !errors.Is(err, errOverBudget) {
		t.Fatalf("a holding past the total: %v", err)
	}
	h.release()
	if b.used != 0 {
		t.Fatalf("used %d after release", b.used)
	}
}

package filter

import (
	"bytes"
	"crypto/sha256"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestRetainedGetNeverReturnsEmptyBytes races a Get of a borrowed record
// with the record being replaced and then detached: a Get that found the
// record before it was replaced must either miss or return its bytes, never
// report a hit with no bytes (a retry would then send an empty payload).
func TestRetainedGetNeverReturnsEmptyBytes(t *testing.T) {
	want := []byte(`{"input":[]}`)
	other := []byte(`{"input":[1]}`)
	sum := sha256.Sum256(want)
	r := NewRetained(nil, 1<<20)
	var stop atomic.Bool
	var bad atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				got, _, ok := r.Get("a")
				if ok && !bytes.Equal(got, want) && !bytes.Equal(got, other) {
					bad.Add(1)
				}
			}
		}()
	}
	for i := 0; i < 200000 && bad.Load() == 0; i++ {
		frame := append([]byte(nil), want...)
		detach := r.PutBorrowed("a", [][]byte{frame}, sum)
		r.Put("a", other, sum) // replaces (drops) the borrowed record
		detach()
	}
	stop.Store(true)
	wg.Wait()
	if n := bad.Load(); n > 0 {
		t.Fatalf("%d Gets reported a hit with bytes that were never recorded (nil)", n)
	}
}

// TestRetainedOversizedBorrowedIsNotCopied records borrowed bytes larger
// than the whole budget: the store keeps nothing (a Get misses), so detach
// must not copy them either — a pointless copy of the whole payload on the
// reply path.
func TestRetainedOversizedBorrowedIsNotCopied(t *testing.T) {
	big := bytes.Repeat([]byte{'x'}, 8<<20)
	r := NewRetained(nil, 1<<20)
	detach := r.PutBorrowed("a", [][]byte{big[:4<<20], big[4<<20:]}, sha256.Sum256(big))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	detach()
	runtime.ReadMemStats(&after)
	if _, _, ok := r.Get("a"); ok {
		t.Fatal("a record over the budget was kept")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n >= 8<<20 {
		t.Fatalf("detach of a record the store never kept allocated %d bytes (copied it)", n)
	}
}

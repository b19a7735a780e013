package filter

import (
	"bytes"
	"crypto/sha256"
	"strconv"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestRetainedTTL(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	r := NewRetained(clock.now, 0)
	out := []byte(`{"input":[]}`)
	sum := sha256.Sum256(out)
	r.Put("req-1", out, sum)
	clock.t = clock.t.Add(RetainTTL - time.Millisecond)
	got, gotSum, ok := r.Get("req-1")
	if !ok || !bytes.Equal(got, out) || gotSum != sum {
		t.Fatal("record missing before its TTL")
	}
	if _, _, ok := r.Get("req-2"); ok {
		t.Fatal("unknown request found")
	}
	clock.t = clock.t.Add(time.Millisecond)
	if _, _, ok := r.Get("req-1"); ok || r.Len() != 0 {
		t.Fatal("record still there at its TTL")
	}
}

func TestRetainedReplace(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	r := NewRetained(clock.now, 100)
	r.Put("a", make([]byte, 60), [32]byte{1})
	r.Put("a", make([]byte, 70), [32]byte{2})
	if got, sum, ok := r.Get("a"); !ok || len(got) != 70 || sum != ([32]byte{2}) || r.Len() != 1 {
		t.Fatal("replacement not kept alone")
	}
	// The replaced record no longer counts against the budget.
	r.Put("b", make([]byte, 30), [32]byte{3})
	if _, _, ok := r.Get("a"); !ok {
		t.Fatal("budget still charged for the replaced record")
	}
}

func TestRetainedBudget(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	r := NewRetained(clock.now, 100)
	for k := range 5 {
		r.Put(strconv.Itoa(k), make([]byte, 30), [32]byte{byte(k)})
		clock.t = clock.t.Add(time.Second)
	}
	// 3 × 30 bytes fit; the oldest went first.
	for k, want := range []bool{false, false, true, true, true} {
		if _, _, ok := r.Get(strconv.Itoa(k)); ok != want {
			t.Fatalf("record %d present = %v, want %v", k, ok, want)
		}
	}
	r.Put("huge", make([]byte, 101), [32]byte{})
	if _, _, ok := r.Get("huge"); ok || r.Len() != 3 {
		t.Fatal("a record over the whole budget was kept or evicted others")
	}
}

func TestRetainedEntryBound(t *testing.T) {
	r := NewRetained(nil, 0)
	for k := range MaxRetainedEntries + 10 {
		r.Put(strconv.Itoa(k), nil, [32]byte{})
	}
	if r.Len() != MaxRetainedEntries {
		t.Fatalf("holds %d records, want %d", r.Len(), MaxRetainedEntries)
	}
	if _, _, ok := r.Get("0"); ok {
		t.Fatal("the oldest record was not evicted")
	}
}

// TestRetainedBorrowed records bytes that are still slices of a buffer the
// caller will reuse: once detached, the record keeps its own copy; a Get
// before detach copies them itself; and the budget counts them either way.
func TestRetainedBorrowed(t *testing.T) {
	frame := []byte(`xx{"input":[1,2]}yy`)
	pieces := [][]byte{frame[2:12], frame[15:17]} // {"input":[ and ]}
	want := []byte(`{"input":[]}`)
	sum := sha256.Sum256(want)

	r := NewRetained(nil, 64)
	detach := r.PutBorrowed("a", pieces, sum)
	detach()
	copy(frame, bytes.Repeat([]byte{'!'}, len(frame))) // the buffer is reused
	if got, gotSum, ok := r.Get("a"); !ok || !bytes.Equal(got, want) || gotSum != sum {
		t.Fatalf("after detach and reuse: %q %v", got, ok)
	}

	frame = []byte(`xx{"input":[1,2]}yy`)
	detach = r.PutBorrowed("b", [][]byte{frame[2:12], frame[15:17]}, sum)
	got, _, ok := r.Get("b") // before detach: taken from the live buffer
	detach()
	copy(frame, bytes.Repeat([]byte{'!'}, len(frame)))
	if !ok || !bytes.Equal(got, want) {
		t.Fatalf("get before detach: %q %v", got, ok)
	}
	if again, _, _ := r.Get("b"); !bytes.Equal(again, want) {
		t.Fatalf("after reuse: %q", again)
	}

	// 64 bytes of budget: five 12-byte records fit, the sixth evicts "a".
	for i := range 4 {
		r.PutBorrowed(strconv.Itoa(i), [][]byte{want}, sum)()
	}
	if _, _, ok := r.Get("a"); ok {
		t.Fatal("borrowed records are not counted against the budget")
	}
}

package filter

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// bigReasoning is a payload with one reasoning item of n ciphertext bytes.
func bigReasoning(n int) []byte {
	return body(reasoningItem("rs_big", "gAAAAAB"+string(bytes.Repeat([]byte("Zq"), (n-7)/2))+string("xyz"[:(n-7)%2])))
}

func TestCancellationStopsWithinOneChunk(t *testing.T) {
	payload := bigReasoning(64 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	turn := NewTurn(Options{})
	chunks := 0
	turn.onChunk = func() {
		if chunks++; chunks == 3 {
			cancel()
		}
	}
	_, err := turn.Apply(ctx, payload, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if chunks != 3 {
		t.Fatalf("hashed %d chunks, want 3: cancellation must stop within one chunk", chunks)
	}
	if turn.HasBaseline() {
		t.Fatal("a cancelled call left a baseline")
	}
}

func TestRevocationStopsWithinOneChunk(t *testing.T) {
	payload := bigReasoning(16 << 20)
	turn := NewTurn(Options{})
	chunks, revoked := 0, false
	turn.onChunk = func() {
		if chunks++; chunks == 5 {
			revoked = true
		}
	}
	_, err := turn.Apply(context.Background(), payload, func() error {
		if revoked {
			return diag.New(diag.Revoked, "turn ended")
		}
		return nil
	})
	wantCode(t, err, diag.Revoked)
	if chunks != 5 || turn.HasBaseline() {
		t.Fatalf("chunks %d, baseline %v", chunks, turn.HasBaseline())
	}
}

func TestRevocationBeforeCommitLeavesNoBaseline(t *testing.T) {
	turn := NewTurn(Options{})
	polls := 0
	// The payload hashes one chunk: polls are start, chunk, commit.
	_, err := turn.Apply(context.Background(), body(reasoningItem("rs_1", "gAAAAABx")), func() error {
		if polls++; polls == 3 {
			return diag.New(diag.Revoked, "turn ended")
		}
		return nil
	})
	wantCode(t, err, diag.Revoked)
	if polls != 3 || turn.HasBaseline() {
		t.Fatalf("polls %d, baseline %v", polls, turn.HasBaseline())
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	turn := NewTurn(Options{})
	if _, err := turn.Apply(ctx, body(), nil); !errors.Is(err, context.Canceled) || turn.HasBaseline() {
		t.Fatalf("got %v, baseline %v", err, turn.HasBaseline())
	}
}

// TestOverlap holds the first call inside its hashing while a second call
// of the same turn runs: the second must fail and change nothing.
func TestOverlap(t *testing.T) {
	for _, firstFails := range []bool{false, true} {
		turn := NewTurn(Options{})
		inside, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		turn.onChunk = func() {
			once.Do(func() { close(inside); <-release })
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := turn.Apply(ctx, body(reasoningItem("rs_1", "gAAAAABfirst")), nil)
			done <- err
		}()
		<-inside
		_, err := turn.Apply(context.Background(), body(reasoningItem("rs_2", "gAAAAABsecond")), nil)
		wantCode(t, err, diag.ProcessingOverlap)
		if turn.HasBaseline() {
			t.Fatal("baseline set while the first call was still running")
		}
		if firstFails {
			cancel()
		}
		close(release)
		err = <-done
		cancel()
		if firstFails {
			if !errors.Is(err, context.Canceled) || turn.HasBaseline() {
				t.Fatalf("first call: %v, baseline %v", err, turn.HasBaseline())
			}
			continue
		}
		if err != nil || !turn.HasBaseline() {
			t.Fatalf("first call: %v, baseline %v", err, turn.HasBaseline())
		}
		// The baseline is the first call's: rs_1 is omitted, rs_2 kept.
		turn.onChunk = nil
		res := mustApply(t, turn, body(reasoningItem("rs_1", "gAAAAABfirst"), reasoningItem("rs_2", "gAAAAABsecond")))
		if res.Omitted.Items != 1 || !bytes.Contains(res.Output, []byte("rs_2")) {
			t.Fatalf("baseline is not the first call's: %+v %s", res.Omitted, res.Output)
		}
	}
}

// TestCancellationStopsTheFinalSum cancels a call while the final sum (the SHA-256
// of the final bytes) runs on its own goroutine: it stops within one chunk, and
// Apply returns only after it has (nothing reads the payload afterwards).
func TestCancellationStopsTheFinalSum(t *testing.T) {
	payload := body(`{"type":"message","role":"user","content":"` + strings.Repeat("tool output ", 1<<20) + `"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	turn := NewTurn(Options{})
	turn.ways.sumFrom = 0
	var chunks atomic.Int32
	turn.onFinalSum = func() {
		if chunks.Add(1) == 3 {
			cancel()
		}
	}
	_, err := turn.Apply(ctx, payload, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if n := chunks.Load(); n != 3 {
		t.Fatalf("hashed %d final-sum chunks, want 3: cancellation must stop within one chunk", n)
	}
	if turn.HasBaseline() {
		t.Fatal("a cancelled call left a baseline")
	}
}

// TestFailedCallStopsTheFinalSum makes the fingerprints fail (a ciphertext
// over the work bound) after a later step's final sum has started waiting for
// their decisions: the final sum must end too, and the call name the limit.
func TestFailedCallStopsTheFinalSum(t *testing.T) {
	turn := NewTurn(Options{})
	turn.ways.sumFrom = 0
	mustApply(t, turn, body(reasoningItem("rs_1", "gAAAAABfirst")))
	over := "gAAAAAB" + strings.Repeat("Q", MaxHashedUnits)
	_, err := turn.Apply(context.Background(), body(reasoningItem("rs_2", over), `{"type":"message","content":"after"}`), nil)
	wantCode(t, err, diag.ReasoningWorkLimit)
}

// TestCancellationStopsBothHashers cancels a call whose many reasoning items
// are fingerprinted on two goroutines: each stops within one chunk, so at
// most one chunk more than the one that cancelled is hashed, and the call
// leaves no baseline.
func TestCancellationStopsBothHashers(t *testing.T) {
	var items []string
	for i := range 64 {
		items = append(items, reasoningItem("rs_"+strconv.Itoa(i), "gAAAAAB"+strings.Repeat(string(rune('a'+i%26)), 3*ChunkUnits)))
	}
	payload := body(items...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	turn := NewTurn(Options{})
	var chunks atomic.Int32
	turn.onChunk = func() {
		if chunks.Add(1) == 10 {
			cancel()
		}
	}
	_, err := turn.Apply(ctx, payload, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if n := chunks.Load(); n < 10 || n > 11 {
		t.Fatalf("hashed %d chunks, want 10 or 11: each hasher must stop within one chunk", n)
	}
	if turn.HasBaseline() {
		t.Fatal("a cancelled call left a baseline")
	}
}

// TestWorkBoundIsPerCall spreads more ciphertext than MaxHashedUnits over
// items hashed on two goroutines: the bound counts them together.
func TestWorkBoundIsPerCall(t *testing.T) {
	per := MaxHashedUnits/8 + 1
	var items []string
	for i := range 8 {
		items = append(items, reasoningItem("rs_"+strconv.Itoa(i), "gAAAAAB"+strings.Repeat("Q", per)))
	}
	turn := NewTurn(Options{})
	_, err := turn.Apply(context.Background(), body(items...), nil)
	wantCode(t, err, diag.ReasoningWorkLimit)
	if turn.HasBaseline() {
		t.Fatal("a call over the bound left a baseline")
	}
}

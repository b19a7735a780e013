package queue

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestItemsRunInPushOrder(t *testing.T) {
	var mu sync.Mutex
	var got []int
	q := New(context.Background(), func(_ context.Context, n int) {
		mu.Lock()
		got = append(got, n)
		mu.Unlock()
	}, Options[int]{})
	for i := range 100 {
		q.Push(i)
	}
	if unrun := q.Close(context.Background()); unrun != 0 {
		t.Fatalf("Close left %d items unrun", unrun)
	}
	if want := rangeInts(100); !slices.Equal(got, want) {
		t.Fatalf("ran %v, want %v", got, want)
	}
}

func TestLimitDropsOldestAndSaysSo(t *testing.T) {
	block := make(chan struct{})
	started := make(chan struct{}, 1)
	var ran []int
	var dropped []int
	q := New(context.Background(), func(_ context.Context, n int) {
		if n == 0 {
			started <- struct{}{}
			<-block
		}
		ran = append(ran, n)
	}, Options[int]{Limit: 2, Dropped: func(n int) { dropped = append(dropped, n) }})
	q.Push(0)
	<-started // 0 runs; 1..4 wait in a queue of 2
	for i := 1; i <= 4; i++ {
		q.Push(i)
	}
	if q.Len() != 2 {
		t.Fatalf("Len = %d, want the limit 2", q.Len())
	}
	close(block)
	q.Close(context.Background())
	if !slices.Equal(dropped, []int{1, 2}) || !slices.Equal(ran, []int{0, 3, 4}) {
		t.Fatalf("dropped %v ran %v, want dropped [1 2] ran [0 3 4]", dropped, ran)
	}
	q.Push(5)
	if !slices.Equal(dropped, []int{1, 2, 5}) {
		t.Fatalf("a push after Close was not reported dropped: %v", dropped)
	}
}

// Close waits for the goroutine even past its deadline: it cancels the
// running item and returns only once that item has returned, so the owner
// may close what the work uses right after. The item's cleanup outlasts
// the deadline on synctest's clock, so the test takes no real time.
func TestCloseCancelsAtDeadlineAndWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		var returned bool
		q := New(context.Background(), func(ctx context.Context, n int) {
			if n == 0 {
				close(started)
			}
			<-ctx.Done()
			time.Sleep(20 * time.Millisecond) // cleanup after cancellation
			returned = true
		}, Options[int]{})
		q.Push(0)
		q.Push(1)
		q.Push(2)
		<-started
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		began := time.Now()
		unrun := q.Close(ctx)
		if !returned {
			t.Fatal("Close returned before the running item did")
		}
		if waited := time.Since(began); waited != 70*time.Millisecond {
			t.Fatalf("Close returned after %v, want the 50ms deadline plus the item's 20ms cleanup", waited)
		}
		if unrun != 2 {
			t.Fatalf("unrun = %d, want 2", unrun)
		}
	})
}

func TestParentContextEndsTheQueue(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	seen := make(chan error, 1)
	started := make(chan struct{})
	q := New(parent, func(ctx context.Context, _ int) {
		close(started)
		<-ctx.Done()
		seen <- ctx.Err()
	}, Options[int]{})
	q.Push(0)
	q.Push(1)
	<-started
	cancel()
	select {
	case err := <-seen:
		if err == nil {
			t.Fatal("item context not cancelled")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling the parent did not reach the running item")
	}
	if unrun := q.Close(context.Background()); unrun != 1 {
		t.Fatalf("unrun = %d, want 1 (the item behind the cancelled one)", unrun)
	}
}

func rangeInts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestHoldKeepsItemsWaitingUntilEveryRelease: while any hold is taken no
// item runs; synctest.Wait lets the queue's goroutine do whatever it would
// before the test looks, instead of a sleep that hopes it has.
func TestHoldKeepsItemsWaitingUntilEveryRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ran := make(chan int, 8)
		q := New(context.Background(), func(_ context.Context, n int) { ran <- n }, Options[int]{})
		defer q.Close(context.Background())
		first, second := q.Hold(), q.Hold()
		q.Push(1)
		q.Push(2)
		first()
		first() // a release counts once
		synctest.Wait()
		select {
		case n := <-ran:
			t.Fatalf("item %d ran while a hold was still taken", n)
		default:
		}
		if q.Len() != 2 {
			t.Fatalf("Len = %d while held, want 2", q.Len())
		}
		second()
		synctest.Wait()
		for want := 1; want <= 2; want++ {
			select {
			case n := <-ran:
				if n != want {
					t.Fatalf("ran %d, want %d (push order)", n, want)
				}
			default:
				t.Fatalf("item %d did not run after the last release", want)
			}
		}
	})
}

func TestCloseRunsHeldItems(t *testing.T) {
	var got []int
	q := New(context.Background(), func(_ context.Context, n int) { got = append(got, n) }, Options[int]{})
	release := q.Hold()
	defer release()
	q.Push(1)
	if unrun := q.Close(context.Background()); unrun != 0 || !slices.Equal(got, []int{1}) {
		t.Fatalf("Close with a hold taken: ran %v, left %d unrun", got, unrun)
	}
}

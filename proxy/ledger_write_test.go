package proxy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// TestLedgerWritesBatched: writes made at once are committed together,
// each with its own outcome: every good one is in the ledger, one whose
// insert fails returns its own error and leaves nothing, one whose context
// ended is refused, and the bound's eviction still runs.
func TestLedgerWritesBatched(t *testing.T) {
	l := testLedger(t)
	l.maxSessions = 40
	bad := errors.New("this insert fails")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	const n = 48
	errs := make([]error, n)
	// Write 0 holds its transaction open until the other 47 are queued
	// behind it, so the test does not depend on how the scheduler
	// interleaves them: they must then go in one more transaction.
	started, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	start := func(i int) {
		wg.Go(func() {
			ctx := context.Background()
			if i == 7 {
				ctx = cancelled
			}
			errs[i] = l.write(ctx, `proxy_sessions`, l.maxSessions, func(tx *sql.Tx) error {
				if i == 0 {
					close(started)
					<-release
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO proxy_sessions(session, first_seen) VALUES(?, ?)`, fmt.Sprint("s", i), i); err != nil {
					return err
				}
				if i == 3 {
					return bad // after its row is in: the savepoint takes it back
				}
				return nil
			})
		})
	}
	start(0)
	<-started
	for i := 1; i < n; i++ {
		start(i)
	}
	for queued := 0; queued < n-1; {
		l.writes.mu.Lock()
		queued = len(l.writes.queue)
		l.writes.mu.Unlock()
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	for i, err := range errs {
		switch {
		case i == 3 && !errors.Is(err, bad), i == 7 && !errors.Is(err, context.Canceled):
			t.Fatalf("write %d: %v", i, err)
		case i != 3 && i != 7 && err != nil:
			t.Fatalf("write %d: %v", i, err)
		}
	}
	var rows int
	var failed, refused int
	db := l.db
	if err := db.QueryRow(`SELECT COUNT(*), SUM(session = 's3'), SUM(session = 's7') FROM proxy_sessions`).Scan(&rows, &failed, &refused); err != nil {
		t.Fatal(err)
	}
	if rows != l.maxSessions || failed != 0 || refused != 0 {
		t.Fatalf("%d rows (bound %d), failed write's row %d, refused write's row %d", rows, l.maxSessions, failed, refused)
	}
	if l.writes.batches != 2 {
		t.Fatalf("%d writes, 47 of them queued behind the first, took %d transactions, want 2", n, l.writes.batches)
	}
	t.Logf("%d writes at once in %d transactions", n, l.writes.batches)
	// A later write works alone.
	if _, err := l.born(context.Background(), "later", 99); err != nil {
		t.Fatal(err)
	}
}

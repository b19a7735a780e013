package proxy

import (
	"context"
	"database/sql"
	"sync"
)

// ledgerWrites batches the ledger's write transactions (group commit).
// Every new session's first request writes its birth and its account, and
// sixteen sessions starting at once made sixteen or more transactions
// compete for SQLite's one write lock: each loser slept in the busy
// handler (milliseconds at a time) and the last request of the lot waited
// some 13–19 ms for it, more than its filter took. Instead, the writes
// that arrive while one transaction runs wait and are committed together
// in the next: one lock, one commit, for all of them.
//
// Each write keeps its own outcome: it runs under a savepoint, so one that
// fails is rolled back alone and returns its error while the others
// commit; a failed commit fails every write of the batch.
type ledgerWrites struct {
	mu      sync.Mutex
	queue   []*queuedWrite
	leading bool // a caller is committing a batch
	batches int  // transactions begun, for the tests
}

// queuedWrite is one caller's write; done receives its outcome, or lead
// when the caller is to commit the next batch.
type queuedWrite struct {
	ctx    context.Context
	table  string
	limit  int
	insert func(*sql.Tx) error
	done   chan writeOutcome
}

type writeOutcome struct {
	lead bool
	err  error
}

// write runs insert in a transaction that then evicts the oldest rows of
// table beyond limit, batched with the writes that wait alongside it.
func (l *ledger) write(ctx context.Context, table string, limit int, insert func(*sql.Tx) error) error {
	w := &queuedWrite{ctx: ctx, table: table, limit: limit, insert: insert, done: make(chan writeOutcome, 1)}
	q := &l.writes
	q.mu.Lock()
	q.queue = append(q.queue, w)
	lead := !q.leading
	q.leading = true
	q.mu.Unlock()
	if !lead {
		if out := <-w.done; !out.lead {
			return out.err
		}
	}
	// This caller commits what is queued now (its own write among it),
	// then hands the lead to the first write queued meanwhile, if any.
	q.mu.Lock()
	batch := q.queue
	q.queue = nil
	q.batches++
	q.mu.Unlock()
	l.commit(batch)
	q.mu.Lock()
	if len(q.queue) > 0 {
		q.queue[0].done <- writeOutcome{lead: true}
	} else {
		q.leading = false
	}
	q.mu.Unlock()
	return (<-w.done).err
}

// commit runs batch in one transaction and tells each write its outcome.
func (l *ledger) commit(batch []*queuedWrite) {
	errs := make([]error, len(batch))
	finish := func(commitErr error) {
		for i, w := range batch {
			if errs[i] == nil {
				errs[i] = commitErr
			}
			w.done <- writeOutcome{err: errs[i]}
		}
	}
	// The batch is not the leader's alone: its cancellation stops no
	// other caller's write (each insert runs under its own context).
	ctx := context.WithoutCancel(batch[0].ctx)
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		finish(err)
		return
	}
	defer tx.Rollback()
	limits := map[string]int{}
	for i, w := range batch {
		if err := w.ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		if _, err := tx.ExecContext(ctx, `SAVEPOINT ledger_write`); err != nil {
			finish(err)
			return
		}
		if errs[i] = w.insert(tx); errs[i] != nil {
			if _, err := tx.ExecContext(ctx, `ROLLBACK TO ledger_write`); err != nil {
				finish(err)
				return
			}
		} else {
			limits[w.table] = w.limit
		}
		if _, err := tx.ExecContext(ctx, `RELEASE ledger_write`); err != nil {
			finish(err)
			return
		}
	}
	for table, limit := range limits {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE seq <= (SELECT MAX(seq) FROM `+table+`) - ?`, limit); err != nil {
			finish(err)
			return
		}
	}
	finish(tx.Commit())
}

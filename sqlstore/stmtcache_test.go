package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"modernc.org/sqlite"
)

// openOne opens the store in dir on a single connection, so every call
// below meets the same cache.
func openOne(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// cacheOf runs f on the connection's cache.
func cacheOf(t *testing.T, db *sql.DB, f func(c *stmtConn)) {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stmtConn)
		if !ok {
			return fmt.Errorf("the connection is a %T, not a caching one", dc)
		}
		f(c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func prepared(t *testing.T, db *sql.DB) (n int) {
	cacheOf(t, db, func(c *stmtConn) { n = c.prepared })
	return n
}

func exec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func count(t *testing.T, db *sql.DB) (n int) {
	t.Helper()
	if err := db.QueryRow(`SELECT count(*) FROM t WHERE x >= ?`, 0).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStatementsArePreparedOncePerConnection: a query run again runs on
// the statement prepared the first time, with the new arguments; scripts
// and text with a semicolon are never cached.
func TestStatementsArePreparedOncePerConnection(t *testing.T) {
	db := openOne(t, t.TempDir())
	exec(t, db, `CREATE TABLE t (x INTEGER PRIMARY KEY, y TEXT)`)
	base := prepared(t, db)
	for i := range 10 {
		exec(t, db, `INSERT INTO t (x, y) VALUES (?, ?)`, i, fmt.Sprint("v", i))
		var y string
		if err := db.QueryRow(`SELECT y FROM t WHERE x = ?`, i).Scan(&y); err != nil || y != fmt.Sprint("v", i) {
			t.Fatalf("row %d: %q, %v", i, y, err)
		}
	}
	if n := prepared(t, db) - base; n != 2 {
		t.Fatalf("%d statements prepared for two queries run ten times each", n)
	}
	exec(t, db, `INSERT INTO t (x, y) VALUES (100, 'a'); INSERT INTO t (x, y) VALUES (101, 'b')`)
	exec(t, db, `INSERT INTO t (x, y) VALUES (102, 'a;b')`)
	if n := prepared(t, db) - base; n != 2 || count(t, db) != 13 {
		t.Fatalf("scripts: %d prepared, %d rows", n, count(t, db))
	}
}

// TestCachedStatementsSeeSchemaChanges: another process migrating the
// schema under a cached statement — a column added, the table dropped and
// made again — is seen by the statement's next run.
func TestCachedStatementsSeeSchemaChanges(t *testing.T) {
	dir := t.TempDir()
	db, other := openOne(t, dir), openOne(t, dir)
	exec(t, db, `CREATE TABLE t (x INTEGER)`)
	exec(t, db, `INSERT INTO t (x) VALUES (1)`)
	columns := func() ([]string, error) {
		rows, err := db.Query(`SELECT * FROM t`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		for rows.Next() {
		}
		return cols, errors.Join(err, rows.Err())
	}
	if cols, err := columns(); err != nil || len(cols) != 1 {
		t.Fatalf("before: %v, %v", cols, err)
	}
	exec(t, other, `ALTER TABLE t ADD COLUMN y TEXT DEFAULT 'd'`)
	if cols, err := columns(); err != nil || strings.Join(cols, ",") != "x,y" {
		t.Fatalf("after a column was added: %v, %v", cols, err)
	}
	var y string
	if err := db.QueryRow(`SELECT y FROM t WHERE x = ?`, 1).Scan(&y); err != nil || y != "d" {
		t.Fatalf("the new column: %q, %v", y, err)
	}
	exec(t, other, `DROP TABLE t`)
	if _, err := columns(); err == nil || !strings.Contains(err.Error(), "no such table") {
		t.Fatalf("after the table was dropped: %v", err)
	}
	exec(t, other, `CREATE TABLE t (z INTEGER, x INTEGER)`)
	if cols, err := columns(); err != nil || strings.Join(cols, ",") != "z,x" {
		t.Fatalf("after the table was made again: %v, %v", cols, err)
	}
}

// TestClosedStoreRefusesAndFinalizes: a closed store answers every query
// with database/sql's error, and closing finalized the cached statements;
// a connection the pool retires takes its statements with it and the next
// one prepares its own.
func TestClosedStoreRefusesAndFinalizes(t *testing.T) {
	db, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	exec(t, db, `CREATE TABLE t (x INTEGER)`)
	exec(t, db, `INSERT INTO t (x) VALUES (?)`, 1)
	var c *stmtConn
	cacheOf(t, db, func(sc *stmtConn) { c = sc })
	if len(c.stmts) == 0 {
		t.Fatal("nothing was cached")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if len(c.stmts) != 0 {
		t.Fatalf("%d statements left after Close", len(c.stmts))
	}
	if _, err := db.Exec(`INSERT INTO t (x) VALUES (?)`, 2); !errors.Is(err, sql.ErrConnDone) && (err == nil || err.Error() != "sql: database is closed") {
		t.Fatalf("a closed store answered %v", err)
	}

	db = openOne(t, t.TempDir())
	db.SetMaxIdleConns(0) // every connection is closed once it is put back
	exec(t, db, `CREATE TABLE t (x INTEGER)`)
	for i := range 5 {
		exec(t, db, `INSERT INTO t (x) VALUES (?)`, i)
	}
	if n := count(t, db); n != 5 {
		t.Fatalf("%d rows through retired connections", n)
	}
}

// TestSameQueryWhileItsRowsAreOpen: the same query run again while rows of
// it are still being read (one transaction, one connection) runs one-shot
// beside them, and both read what they should; the cached statement is
// used again once the rows close.
func TestSameQueryWhileItsRowsAreOpen(t *testing.T) {
	db := openOne(t, t.TempDir())
	exec(t, db, `CREATE TABLE t (x INTEGER)`)
	for i := range 3 {
		exec(t, db, `INSERT INTO t (x) VALUES (?)`, i)
	}
	const q = `SELECT x FROM t WHERE x >= ? ORDER BY x`
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(q, 0)
	if err != nil {
		t.Fatal(err)
	}
	var outer, inner []int
	for rows.Next() {
		var x, y int
		if err := rows.Scan(&x); err != nil {
			t.Fatal(err)
		}
		if err := tx.QueryRow(q, x).Scan(&y); err != nil {
			t.Fatal(err)
		}
		outer, inner = append(outer, x), append(inner, y)
	}
	if err := errors.Join(rows.Err(), rows.Close(), tx.Commit()); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(outer, inner) != "[0 1 2] [0 1 2]" {
		t.Fatalf("read %v and %v", outer, inner)
	}
	before := prepared(t, db)
	var x int
	if err := db.QueryRow(q, 2).Scan(&x); err != nil || x != 2 || prepared(t, db) != before {
		t.Fatalf("after the rows closed: %d, %v, %d prepared (was %d)", x, err, prepared(t, db), before)
	}
}

// TestFailedStatementIsForgotten: a statement that failed (a constraint,
// a cancelled context) returns the driver's error, is finalized and
// prepared afresh on its next run, which succeeds.
func TestFailedStatementIsForgotten(t *testing.T) {
	db := openOne(t, t.TempDir())
	exec(t, db, `CREATE TABLE t (x INTEGER PRIMARY KEY)`)
	const ins = `INSERT INTO t (x) VALUES (?)`
	exec(t, db, ins, 1)
	before := prepared(t, db)
	if _, err := db.Exec(ins, 1); err == nil || !strings.Contains(err.Error(), "UNIQUE") {
		t.Fatalf("a duplicate key: %v", err)
	}
	exec(t, db, ins, 2)
	if n := prepared(t, db) - before; n != 1 {
		t.Fatalf("%d statements prepared after the failure, want the failed one again", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.ExecContext(ctx, ins, 3); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled context: %v", err)
	}
	exec(t, db, ins, 3)
	if n := count(t, db); n != 3 {
		t.Fatalf("%d rows, want 3", n)
	}
	// A prepare that fails caches nothing and says what the one-shot path says.
	if _, err := db.Exec(`INSERT INTO nowhere (x) VALUES (?)`, 1); err == nil || !strings.Contains(err.Error(), "no such table") {
		t.Fatalf("an unknown table: %v", err)
	}
}

// TestConcurrentCachedStatements: writers and readers on a pool of
// connections, each with its own cache, lose no row and read none twice
// (run with -race).
func TestConcurrentCachedStatements(t *testing.T) {
	db, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(4)
	exec(t, db, `CREATE TABLE t (x INTEGER PRIMARY KEY, w INTEGER)`)
	const workers, each = 6, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				x := w*each + i
				if _, err := db.Exec(`INSERT INTO t (x, w) VALUES (?, ?)`, x, w); err != nil {
					errs <- err
					return
				}
				var got int
				if err := db.QueryRow(`SELECT w FROM t WHERE x = ?`, x).Scan(&got); err != nil || got != w {
					errs <- fmt.Errorf("row %d: %d, %v", x, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n, sum int
	if err := db.QueryRow(`SELECT count(*), sum(x) FROM t`).Scan(&n, &sum); err != nil || n != workers*each || sum != (workers*each)*(workers*each-1)/2 {
		t.Fatalf("%d rows summing to %d, %v", n, sum, err)
	}
}

// TestDriverFunctionsSeeThroughTheCache: modernc.org/sqlite's
// connection-level functions reach the driver's connection (Unwrap).
func TestDriverFunctionsSeeThroughTheCache(t *testing.T) {
	db := openOne(t, t.TempDir())
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := sqlite.Limit(conn, 0, -1); err != nil { // 0 is SQLITE_LIMIT_LENGTH; -1 only reads it
		t.Fatal(err)
	}
}

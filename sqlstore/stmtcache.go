package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
)

// Every connection Open makes keeps the statements it has prepared, by
// query text, and runs a query it has seen before on its prepared
// statement. The stores pass their SQL as text on every call
// (db.QueryRowContext(ctx, `SELECT …`)), and SQLite parsing and planning it
// again each time was about 40 % of the SQL work of an agent/request and
// of a boundary decision (issue 26); the query texts are the constants of
// the stores' code, so each connection ends up with a few dozen.
//
// The cache is invisible to callers:
//   - a statement runs exactly as the one-shot path would run it (the
//     driver's own one-shot Exec and Query prepare the same way, then bind,
//     step and reset), and a failed prepare returns what the one-shot path
//     returns, since it is the same prepare;
//   - SQLite re-prepares a statement whose schema changed under it
//     (sqlite3_prepare_v2) before it steps, so a migration, even another
//     process's, is seen by the next run;
//   - a statement that failed is finalized and forgotten, so whatever the
//     failure left in it (an interrupt, a lock wait given up) cannot reach
//     a later call;
//   - a statement whose rows are still open (the same query run again
//     while iterating, within one transaction) is busy: the second run
//     takes the one-shot path;
//   - text with a semicolon (a script, or a literal holding one) is never
//     cached, and a connection caches at most maxCachedStmts statements;
//   - closing the connection (the pool's, or Close of the *sql.DB)
//     finalizes its statements first.
//
// database/sql never uses one driver connection from two goroutines at
// once (it holds the connection's lock around every call, Rows.Close
// included), so a connection's cache needs no lock of its own.

// maxCachedStmts bounds one connection's cache; queries beyond it run
// one-shot.
const maxCachedStmts = 128

// cachingConnector wraps the driver's connector so that each connection it
// opens caches its statements.
type cachingConnector struct{ driver.Connector }

// Connect opens a connection; one that lacks an interface the cache relies
// on (not the driver this package was written against) is returned
// unwrapped.
func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(sqliteConn)
	if !ok {
		return conn, nil
	}
	return &stmtConn{c: sc, stmts: map[string]*cachedStmt{}}, nil
}

// sqliteConn is every interface the driver's connections implement that
// database/sql looks for; stmtConn forwards each (modernc.org/sqlite's
// NewConnector says why a wrapper must).
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// sqliteStmt is a prepared statement that runs with a context.
type sqliteStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// sqliteRows are the driver's rows with the column type interfaces
// database/sql's ColumnTypes reads; cachedRows forwards them.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// stmtConn is one connection with its cache.
type stmtConn struct {
	c     sqliteConn
	stmts map[string]*cachedStmt
	// prepared counts the statements this connection prepared for its
	// cache (tests read it).
	prepared int
}

// cachedStmt is one cached statement; busy while rows of it are open.
type cachedStmt struct {
	s    sqliteStmt
	busy bool
}

var _ sqliteConn = (*stmtConn)(nil)

// Unwrap returns the driver's connection, which modernc.org/sqlite's
// connection-level functions (Limit) look through a wrapper for.
func (c *stmtConn) Unwrap() driver.Conn { return c.c }

// stmt returns the cached statement for query, preparing it on first use.
// It returns nil, nil when the query is to run one-shot: not cacheable,
// the cache full, or the statement busy.
func (c *stmtConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if st, ok := c.stmts[query]; ok {
		if st.busy {
			return nil, nil
		}
		return st, nil
	}
	if len(c.stmts) >= maxCachedStmts || strings.IndexByte(query, ';') >= 0 {
		return nil, nil
	}
	ds, err := c.c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s, ok := ds.(sqliteStmt)
	if !ok {
		return nil, errors.Join(errors.New("sqlstore: the driver's statement runs without a context"), ds.Close())
	}
	st := &cachedStmt{s: s}
	c.stmts[query] = st
	c.prepared++
	return st, nil
}

// forget finalizes a statement that failed and drops it from the cache.
// The call's own error is what the caller reports; finalizing a statement
// after a failure returns that failure again.
func (c *stmtConn) forget(query string, st *cachedStmt) {
	if c.stmts[query] == st {
		delete(c.stmts, query)
	}
	_ = st.s.Close()
}

// ExecContext runs query on its cached statement.
func (c *stmtConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.c.ExecContext(ctx, query, args)
	}
	res, err := st.s.ExecContext(ctx, args)
	if err != nil {
		c.forget(query, st)
		return nil, err
	}
	return res, nil
}

// QueryContext runs query on its cached statement; the statement is busy
// until the rows close.
func (c *stmtConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.c.QueryContext(ctx, query, args)
	}
	rows, err := st.s.QueryContext(ctx, args)
	if err != nil {
		c.forget(query, st)
		return nil, err
	}
	r, ok := rows.(sqliteRows)
	if !ok {
		err := rows.Close()
		c.forget(query, st)
		if err != nil {
			return nil, err
		}
		return c.c.QueryContext(ctx, query, args)
	}
	st.busy = true
	return &cachedRows{sqliteRows: r, st: st}, nil
}

// Close finalizes the cached statements, then closes the connection.
func (c *stmtConn) Close() error {
	var errs []error
	for q, st := range c.stmts {
		errs = append(errs, st.s.Close())
		delete(c.stmts, q)
	}
	return errors.Join(append(errs, c.c.Close())...)
}

func (c *stmtConn) Prepare(query string) (driver.Stmt, error) { return c.c.Prepare(query) }
func (c *stmtConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.c.PrepareContext(ctx, query)
}

// Begin is driver.Conn's; database/sql calls BeginTx.
func (c *stmtConn) Begin() (driver.Tx, error) { return c.c.Begin() }
func (c *stmtConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.c.BeginTx(ctx, opts)
}
func (c *stmtConn) Ping(ctx context.Context) error         { return c.c.Ping(ctx) }
func (c *stmtConn) ResetSession(ctx context.Context) error { return c.c.ResetSession(ctx) }
func (c *stmtConn) IsValid() bool                          { return c.c.IsValid() }

// cachedRows are the rows of a cached statement: closing them resets the
// statement (the driver's rows of a prepared statement do) and frees it
// for the next run.
type cachedRows struct {
	sqliteRows
	st *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.sqliteRows.Close()
	r.st.busy = false
	return err
}

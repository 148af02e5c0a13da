package storage

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"
	"strings"
	"sync/atomic"
)

// stmtCacheSize bounds the prepared statements one SQLite connection keeps.
// Hub's hot statements (gorm's reads by id, updates with RETURNING, inserts)
// are a few dozen texts; 256 keeps them all with room for the texts that
// vary (an IN list of each length, a LIMIT written into the SQL), and a
// sqlite3_stmt costs a few KiB.
const stmtCacheSize = 256

// stmtCacheConnector opens SQLite connections that keep their prepared
// statements.
//
// Why: modernc.org/sqlite prepares every QueryContext and ExecContext afresh,
// and preparing (SQLite's parser) was about 15 % of hub dev's CPU, half of it
// Hub's own statements. gorm's PrepareStmt caches per *sql.DB through
// database/sql's Stmt, which binds a statement first prepared inside a
// transaction to that transaction and prepares it again in every later one;
// most of Hub's statements run in transactions. Hub's SQLite handle has one
// connection, so a cache below database/sql, per driver connection, serves
// every transaction and every statement outside one.
//
// What it saves: `hub bench` side by side (docs/benchmarks.md, "Devices
// measured side by side"), 11 % of the CPU per turn (39.5 against 44.2 ms)
// and 4.4 ms of the sequential median (33.3 against 37.7 ms). Its
// invariant: a cached statement belongs to one connection and runs once at
// a time; one that is busy (a query still being read) is not shared, the
// statement is prepared afresh for that use.
type stmtCacheConnector struct {
	driver.Connector
	size   int
	counts *stmtCounts
}

// stmtCounts counts, over every connection of a connector, what the cache
// did: prepares is how often SQLite's parser ran for a statement (a cached
// statement's first use, a statement the cache does not take, a statement
// prepared fresh because its cached one was busy); hits is how often a cached
// statement ran without it.
type stmtCounts struct {
	prepares atomic.Int64
	hits     atomic.Int64
}

func newStmtCacheConnector(inner driver.Connector, size int) *stmtCacheConnector {
	return &stmtCacheConnector{Connector: inner, size: size, counts: &stmtCounts{}}
}

// Connect opens a connection of the inner connector and gives it a cache.
func (c *stmtCacheConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	inner, ok := dc.(sqliteConn)
	if !ok {
		_ = dc.Close()
		return nil, errors.New("sqlite statement cache: the driver's connection lacks a context method it needs")
	}
	return &cachingConn{
		sqliteConn: inner,
		size:       c.size,
		counts:     c.counts,
		byQuery:    make(map[string]*list.Element),
		lru:        list.New(),
	}, nil
}

// sqliteConn is what the cache needs of modernc's connection, all of which
// it implements; the other methods database/sql looks for (Pinger,
// SessionResetter, Validator) are passed on by cachingConn's embedding.
type sqliteConn interface {
	driver.Conn
	driver.ConnPrepareContext
	driver.ConnBeginTx
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// sqliteStmt is what the cache needs of modernc's statement.
type sqliteStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// sqliteRows is modernc's rows with the column-type methods
// database/sql's ColumnTypes reads; cachedRows passes each of them on.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// cachingConn is one SQLite connection with an LRU of prepared statements
// keyed by SQL text. database/sql never uses a driver connection from two
// goroutines at once (its driverConn lock covers every call, the rows' ones
// too), so the cache needs no lock of its own.
type cachingConn struct {
	sqliteConn
	size    int
	counts  *stmtCounts
	byQuery map[string]*list.Element // of *cachedStmt
	lru     *list.List               // front: most recently used
	closed  bool
}

// Unwrap is modernc's connection, as its NewConnector asks of a wrapper:
// sqlite.Limit and a sql.Conn.Raw user find it through this.
func (c *cachingConn) Unwrap() driver.Conn { return c.sqliteConn }

// cachedStmt is a prepared statement the cache holds. busy while rows it
// returned are open: SQLite's statement is then in the middle of its result,
// and running it again would reset it under those rows. evicted once the
// cache let go of it while busy; its rows' Close finalizes it then.
type cachedStmt struct {
	query   string
	stmt    sqliteStmt
	busy    bool
	evicted bool
}

// cacheable tells SQL the cache takes: one statement of the kinds Hub runs
// again and again. Everything else runs as it did without the cache: a
// string with a ';' may hold several statements (migrations), which modernc
// parses anew on every run even when prepared, and a ';' inside a literal
// only costs that statement the cache; PRAGMA, ATTACH, BEGIN, SAVEPOINT,
// DDL and the like run once or change the connection itself.
func cacheable(query string) bool {
	if strings.IndexByte(query, ';') >= 0 {
		return false
	}
	q := strings.TrimLeft(query, " \t\r\n")
	end := strings.IndexAny(q, " \t\r\n(")
	if end < 0 {
		end = len(q)
	}
	switch strings.ToUpper(q[:end]) {
	case "SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "REPLACE":
		return true
	}
	return false
}

// QueryContext runs query with a cached statement, prepared on its first use.
// A query whose cached statement has rows open (a transaction can hold two
// queries of the same SQL open on the one connection) gets a statement of
// its own, as every query did before the cache.
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if !cacheable(query) {
		c.counts.prepares.Add(1)
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		c.counts.prepares.Add(1)
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	dr, err := cs.stmt.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	rows, ok := dr.(sqliteRows)
	if !ok {
		_ = dr.Close()
		return nil, errors.New("sqlite statement cache: the driver's rows lack a column-type method they need")
	}
	cs.busy = true
	return &cachedRows{sqliteRows: rows, conn: c, stmt: cs}, nil
}

// ExecContext runs query with a cached statement, prepared on its first use.
// modernc resets the statement before it returns, so the statement is free
// again at once.
func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if !cacheable(query) {
		c.counts.prepares.Add(1)
		return c.sqliteConn.ExecContext(ctx, query, args)
	}
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		c.counts.prepares.Add(1)
		return c.sqliteConn.ExecContext(ctx, query, args)
	}
	return cs.stmt.ExecContext(ctx, args)
}

// PrepareContext prepares a statement the caller owns (database/sql's Stmt);
// the cache keeps no part of it.
func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.counts.prepares.Add(1)
	return c.sqliteConn.PrepareContext(ctx, query)
}

// Prepare is PrepareContext without a context.
func (c *cachingConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// stmt returns the cached statement for query, preparing and caching it if
// there is none, or nil when the cached one is busy. A query SQLite refuses
// to prepare returns the error it returned before the cache: the same
// prepare ran then.
func (c *cachingConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if el, ok := c.byQuery[query]; ok {
		cs := el.Value.(*cachedStmt)
		if cs.busy {
			return nil, nil
		}
		c.lru.MoveToFront(el)
		c.counts.hits.Add(1)
		return cs, nil
	}
	c.counts.prepares.Add(1)
	ds, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	st, ok := ds.(sqliteStmt)
	if !ok {
		_ = ds.Close()
		return nil, errors.New("sqlite statement cache: the driver's statement lacks a context method it needs")
	}
	cs := &cachedStmt{query: query, stmt: st}
	c.byQuery[query] = c.lru.PushFront(cs)
	for c.lru.Len() > c.size {
		c.forget(c.lru.Back().Value.(*cachedStmt))
	}
	return cs, nil
}

// forget drops cs from the cache and closes it, or, while its rows are open,
// leaves closing it to them.
func (c *cachingConn) forget(cs *cachedStmt) {
	if el, ok := c.byQuery[cs.query]; ok && el.Value == cs {
		c.lru.Remove(el)
		delete(c.byQuery, cs.query)
	}
	if cs.busy {
		cs.evicted = true
		return
	}
	_ = cs.stmt.Close()
}

// Close finalizes every cached statement, then closes the connection:
// SQLite keeps a connection with unfinalized statements alive as a zombie.
// database/sql closes a connection only once its rows are closed, so no
// statement is busy here.
func (c *cachingConn) Close() error {
	var errs []error
	for el := c.lru.Front(); el != nil; el = el.Next() {
		if err := el.Value.(*cachedStmt).stmt.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	c.lru.Init()
	clear(c.byQuery)
	c.closed = true
	errs = append(errs, c.sqliteConn.Close())
	return errors.Join(errs...)
}

// cachedRows are the rows of a cached statement; closing them resets the
// statement (modernc does that) and lends it out again.
type cachedRows struct {
	sqliteRows
	conn   *cachingConn
	stmt   *cachedStmt
	closed bool
}

// Close closes the rows and frees their statement for the next query.
func (r *cachedRows) Close() error {
	if r.closed || r.conn.closed {
		return nil
	}
	r.closed = true
	err := r.sqliteRows.Close()
	r.stmt.busy = false
	if r.stmt.evicted {
		if cerr := r.stmt.stmt.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

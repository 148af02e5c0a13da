package storage

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"
	"strings"
	"sync/atomic"
)

// stmtCacheSize bounds the prepared statements one SQLite connection keeps:
// Hub's hot statements are a few dozen texts, and one costs a few KiB.
const stmtCacheSize = 256

// stmtCacheConnector opens SQLite connections that keep their prepared
// statements: modernc.org/sqlite prepares every query afresh, and gorm's
// PrepareStmt prepares again in every transaction. Measured side by side
// (docs/benchmarks.md): 11 % less CPU per turn, 4.4 ms off the median.
// Invariant: a cached statement belongs to one connection and runs once at
// a time; while busy (its rows still read) the query is prepared afresh.
type stmtCacheConnector struct {
	driver.Connector
	size   int
	counts *stmtCounts
}

// stmtCounts counts, over every connection of a connector, how often
// SQLite's parser ran for a statement (prepares) and how often a cached
// statement ran without it (hits).
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

// sqliteConn is what the cache needs of modernc's connection, and what
// database/sql looks for, passed on by cachingConn's embedding.
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

// sqliteRows is modernc's rows with the column-type methods database/sql
// reads.
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
// goroutines at once, so it needs no lock.
type cachingConn struct {
	sqliteConn
	size    int
	counts  *stmtCounts
	byQuery map[string]*list.Element // of *cachedStmt
	lru     *list.List               // front: most recently used
	closed  bool
}

// Unwrap is modernc's connection, as its NewConnector asks of a wrapper.
func (c *cachingConn) Unwrap() driver.Conn { return c.sqliteConn }

// cachedStmt is a prepared statement the cache holds.
type cachedStmt struct {
	query   string
	stmt    sqliteStmt
	busy    bool // rows it returned are open: running it again would reset them
	evicted bool // let go while busy: its rows' Close finalizes it
}

// cacheable tells SQL the cache takes: one statement of the kinds Hub runs
// again and again. A ';' may separate several statements (migrations),
// which modernc parses anew on every run; PRAGMA, BEGIN, DDL and the like
// run once or change the connection.
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
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
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

// ExecContext runs query with a cached statement, prepared on its first use
// (modernc resets it before it returns).
func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
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
// there is none, or nil when query is not cacheable or the cached one is busy
// (two queries of one text open in a transaction): the caller then runs
// it uncached.
func (c *cachingConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if !cacheable(query) {
		c.counts.prepares.Add(1)
		return nil, nil
	}
	if el, ok := c.byQuery[query]; ok {
		cs := el.Value.(*cachedStmt)
		if cs.busy {
			c.counts.prepares.Add(1)
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

// Close finalizes every cached statement (none is busy: database/sql
// closes a connection only once its rows are), then the connection, which
// SQLite would otherwise keep as a zombie.
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

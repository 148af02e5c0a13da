package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	moderncsqlite "modernc.org/sqlite"
)

// cacheRow has a column of every kind Hub stores: text, integers, reals,
// booleans, times, bytes, and NULLs of each.
type cacheRow struct {
	ID      int64 `gorm:"primaryKey"`
	Name    string
	Email   *string
	Count   int
	Score   float64
	Ratio   *float64
	Done    bool
	At      time.Time
	Ended   *time.Time
	Payload []byte
	Blank   []byte
}

func (cacheRow) TableName() string { return "cache_rows" }

const cacheRowsDDL = `CREATE TABLE cache_rows (
	id integer PRIMARY KEY, name text NOT NULL, email text UNIQUE, count integer NOT NULL,
	score real NOT NULL, ratio real, done boolean NOT NULL, at datetime NOT NULL,
	ended datetime, payload blob, blank blob)`

// openCache opens a SQLite file of its own with a statement cache of size
// (0: none), with cache_rows made.
func openCache(t testing.TB, size int) *DB {
	t.Helper()
	db, err := open(context.Background(), filepath.Join(t.TempDir(), "hub.db"), size)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	require.NoError(t, db.Exec(cacheRowsDDL).Error)
	return db
}

// prepares is how often SQLite prepared a statement for db so far.
func prepares(db *DB) int64 { return db.stmts.prepares.Load() }

func sampleRows() []cacheRow {
	email, ratio := "ärger@example.com", 0.25
	ended := time.Date(2026, 12, 2, 3, 4, 5, 123456789, time.UTC)
	return []cacheRow{
		{ID: 1, Name: "Ärger", Email: &email, Count: -3, Score: 1.5, Ratio: &ratio, Done: true,
			At: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Ended: &ended, Payload: []byte{0, 1, 2, 255}, Blank: []byte{}},
		{ID: 2, Name: "", Count: 0, Score: 0, At: time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC)},
		{ID: 3, Name: "three", Count: 1 << 40, Score: -2e10, Done: false,
			At: time.Date(2026, 6, 1, 0, 0, 0, 0, time.FixedZone("x", 3600)).UTC(), Payload: []byte("bytes")},
	}
}

// TestCachedStatementsReturnWhatFreshOnesDo writes and reads the same rows
// through a handle with the cache and one without, each read twice (the
// first prepares, the second reuses), and compares them all.
func TestCachedStatementsReturnWhatFreshOnesDo(t *testing.T) {
	t.Parallel()
	read := func(db *DB) (all []cacheRow, byID []cacheRow, nulls int64, names []string) {
		for range 2 {
			all = nil
			require.NoError(t, db.Order("id").Find(&all).Error)
			byID = nil
			for _, r := range sampleRows() {
				var got cacheRow
				require.NoError(t, db.First(&got, r.ID).Error)
				byID = append(byID, got)
			}
			require.NoError(t, db.Raw("SELECT count(*) FROM cache_rows WHERE email IS NULL AND ratio IS ?", nil).Scan(&nulls).Error)
			names = nil
			require.NoError(t, db.Raw("SELECT hub_lower(name) FROM cache_rows WHERE at > ? AND payload IS NOT ? ORDER BY id",
				time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), []byte("none")).Scan(&names).Error)
		}
		return all, byID, nulls, names
	}
	write := func(db *DB) {
		for _, r := range sampleRows() {
			require.NoError(t, db.Create(&r).Error)
		}
		// an update with RETURNING, through the cache twice
		for range 2 {
			var back []cacheRow
			require.NoError(t, db.Model(&back).Clauses(clause.Returning{}).Where("id = ?", 3).
				Update("count", gorm.Expr("count + ?", 1)).Error)
			require.Len(t, back, 1)
		}
	}
	plain, cached := openCache(t, 0), openCache(t, stmtCacheSize)
	write(plain)
	write(cached)

	wantAll, wantByID, wantNulls, wantNames := read(plain)
	before := prepares(cached)
	gotAll, gotByID, gotNulls, gotNames := read(cached)
	require.Equal(t, wantAll, gotAll)
	require.Equal(t, wantByID, gotByID)
	require.Equal(t, wantNulls, gotNulls)
	require.Equal(t, wantNames, gotNames)
	require.Equal(t, []string{"ärger", "three"}, gotNames)
	require.EqualValues(t, 1<<40+2, gotAll[2].Count)
	require.Equal(t, []byte{0, 1, 2, 255}, gotAll[0].Payload)
	require.Nil(t, gotAll[1].Email)
	// Find, First, the two raw reads: four texts, each prepared once though
	// every one ran at least twice.
	require.EqualValues(t, 4, prepares(cached)-before)
}

// TestAStatementIsPreparedOncePerText runs a read by id, an update and an
// insert ten times each, in and out of transactions: three prepares.
func TestAStatementIsPreparedOncePerText(t *testing.T) {
	t.Parallel()
	db := openCache(t, stmtCacheSize)
	before := prepares(db)
	for i := range 10 {
		run := func(tx *gorm.DB) error {
			if err := tx.Create(&cacheRow{ID: int64(100 + i), Name: "n", At: time.Now().UTC()}).Error; err != nil {
				return err
			}
			var r cacheRow
			if err := tx.First(&r, 100+i).Error; err != nil {
				return err
			}
			return tx.Model(&r).Update("count", i).Error
		}
		if i%2 == 0 {
			require.NoError(t, db.Transaction(run))
		} else {
			require.NoError(t, run(db.DB))
		}
	}
	require.EqualValues(t, 3, prepares(db)-before, "one prepare per SQL text")
	require.EqualValues(t, 27, db.stmts.hits.Load(), "every other run reused its statement")
}

// TestTwoOpenQueriesOfOneTextInATransaction keeps a query's rows open while
// the same SQL runs again in the same transaction: the second gets a
// statement of its own, and both read their own rows.
func TestTwoOpenQueriesOfOneTextInATransaction(t *testing.T) {
	t.Parallel()
	db := openCache(t, stmtCacheSize)
	for _, r := range sampleRows() {
		require.NoError(t, db.Create(&r).Error)
	}
	const q = "SELECT id FROM cache_rows WHERE id >= ? ORDER BY id"
	ctx := t.Context()
	tx, err := db.SQL().BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()

	outer, err := tx.QueryContext(ctx, q, 1)
	require.NoError(t, err)
	var got [][2]int64
	for outer.Next() {
		var id int64
		require.NoError(t, outer.Scan(&id))
		inner, err := tx.QueryContext(ctx, q, id+1)
		require.NoError(t, err)
		for inner.Next() {
			var next int64
			require.NoError(t, inner.Scan(&next))
			got = append(got, [2]int64{id, next})
		}
		require.NoError(t, inner.Err())
		require.NoError(t, inner.Close())
	}
	require.NoError(t, outer.Err())
	require.NoError(t, outer.Close())
	require.Equal(t, [][2]int64{{1, 2}, {1, 3}, {2, 3}}, got)

	// The cached statement is free again and reused.
	before := prepares(db)
	var n int
	require.NoError(t, tx.QueryRowContext(ctx, "SELECT count(*) FROM ("+q+")", 2).Scan(&n))
	rows, err := tx.QueryContext(ctx, q, 3)
	require.NoError(t, err)
	require.True(t, rows.Next())
	require.NoError(t, rows.Close())
	require.EqualValues(t, 1, prepares(db)-before, "only the new text was prepared")
	require.Equal(t, 2, n)
}

// TestACachedStatementOutlivesTransactions uses one statement in a committed
// transaction, a rolled-back one and outside any: it reads what each saw.
func TestACachedStatementOutlivesTransactions(t *testing.T) {
	t.Parallel()
	db := openCache(t, stmtCacheSize)
	insert := func(tx *gorm.DB, id int64) error {
		return tx.Exec("INSERT INTO cache_rows (id, name, count, score, done, at) VALUES (?, ?, 0, 0, false, ?)",
			id, "r", time.Now().UTC()).Error
	}
	count := func(tx *gorm.DB) (n int64) {
		require.NoError(t, tx.Raw("SELECT count(*) FROM cache_rows WHERE name = ?", "r").Scan(&n).Error)
		return n
	}
	require.NoError(t, db.Transaction(func(tx *gorm.DB) error {
		require.NoError(t, insert(tx, 1))
		require.EqualValues(t, 1, count(tx))
		return nil
	}))
	before := prepares(db)
	tx := db.Begin()
	require.NoError(t, insert(tx, 2))
	require.EqualValues(t, 2, count(tx))
	require.NoError(t, tx.Rollback().Error)
	require.EqualValues(t, 1, count(db.DB))
	require.NoError(t, insert(db.DB, 3))
	require.EqualValues(t, 2, count(db.DB))
	require.NoError(t, db.Transaction(func(tx *gorm.DB) error {
		require.NoError(t, insert(tx, 4))
		require.EqualValues(t, 3, count(tx))
		return nil
	}))
	require.Zero(t, prepares(db)-before, "both statements came from the cache after the first transaction")
}

// TestCachedStatementsSurviveSchemaChanges alters, drops and re-creates the
// table under cached statements: SQLite prepares them again itself.
func TestCachedStatementsSurviveSchemaChanges(t *testing.T) {
	t.Parallel()
	db := openCache(t, stmtCacheSize)
	require.NoError(t, db.Create(&cacheRow{ID: 1, Name: "a", At: time.Now().UTC()}).Error)
	read := func() map[string]any {
		row := map[string]any{}
		require.NoError(t, db.Raw("SELECT * FROM cache_rows WHERE id = ?", 1).Scan(&row).Error)
		return row
	}
	require.NotContains(t, read(), "extra")
	require.NoError(t, db.Exec("ALTER TABLE cache_rows ADD COLUMN extra text NOT NULL DEFAULT 'x'").Error)
	require.Equal(t, "x", read()["extra"])
	require.NoError(t, db.Exec("CREATE INDEX cache_rows_name ON cache_rows (name)").Error)
	require.Equal(t, "a", read()["name"])

	require.NoError(t, db.Exec("DROP TABLE cache_rows").Error)
	err := db.Raw("SELECT * FROM cache_rows WHERE id = ?", 1).Scan(&map[string]any{}).Error
	require.ErrorContains(t, err, "no such table")
	require.NoError(t, db.Exec(cacheRowsDDL).Error)
	require.NoError(t, db.Create(&cacheRow{ID: 1, Name: "b", At: time.Now().UTC()}).Error)
	require.Equal(t, "b", read()["name"])
	require.NotContains(t, read(), "extra")
}

// TestUniqueViolationsStillTranslate breaks a unique index twice through
// the same cached insert: gorm still sees SQLite's error.
func TestUniqueViolationsStillTranslate(t *testing.T) {
	t.Parallel()
	db := openCache(t, stmtCacheSize)
	email := "a@example.com"
	require.NoError(t, db.Create(&cacheRow{ID: 1, Email: &email, At: time.Now().UTC()}).Error)
	before := prepares(db)
	for id := range int64(2) {
		err := db.Create(&cacheRow{ID: 10 + id, Email: &email, At: time.Now().UTC()}).Error
		require.ErrorIs(t, err, gorm.ErrDuplicatedKey)
		require.True(t, IsUniqueViolation(err))
	}
	require.NoError(t, db.Create(&cacheRow{ID: 20, At: time.Now().UTC()}).Error)
	require.Zero(t, prepares(db)-before, "the failed inserts ran the cached statement")
}

// countingConnector counts the statements open on its connections: the
// ones SQLite has prepared and nobody has closed yet.
type countingConnector struct {
	driver.Connector
	open atomic.Int64
}

func (c *countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{sqliteConn: dc.(sqliteConn), open: &c.open}, nil
}

type countingConn struct {
	sqliteConn
	open *atomic.Int64
}

func (c *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.open.Add(1)
	return &countingStmt{sqliteStmt: s.(sqliteStmt), open: c.open}, nil
}

type countingStmt struct {
	sqliteStmt
	open *atomic.Int64
}

func (s *countingStmt) Close() error {
	s.open.Add(-1)
	return s.sqliteStmt.Close()
}

// openCounted opens a SQLite file through a cache of size over a
// countingConnector.
func openCounted(t *testing.T, size int) (*sql.DB, *countingConnector, *stmtCounts) {
	t.Helper()
	inner, err := moderncsqlite.NewConnector(sqliteDSN(filepath.Join(t.TempDir(), "hub.db")))
	require.NoError(t, err)
	counting := &countingConnector{Connector: inner}
	cache := newStmtCacheConnector(counting, size)
	db := sql.OpenDB(cache)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	_, err = db.Exec("CREATE TABLE t (id integer PRIMARY KEY)")
	require.NoError(t, err)
	_, err = db.Exec("INSERT INTO t VALUES (1), (2)")
	require.NoError(t, err)
	return db, counting, cache.counts
}

// TestTheCacheKeepsItsBoundAndClosesWhatItDrops fills a cache of two,
// evicts a statement while its rows are open, and closes the handle.
func TestTheCacheKeepsItsBoundAndClosesWhatItDrops(t *testing.T) {
	t.Parallel()
	db, counting, counts := openCounted(t, 2)
	query := func(q string) {
		var n int
		require.NoError(t, db.QueryRow(q).Scan(&n))
	}
	const a, b, c = "SELECT 1 FROM t WHERE id = 1", "SELECT 2 FROM t WHERE id = 1", "SELECT 3 FROM t WHERE id = 1"
	query(a)
	query(b)
	require.EqualValues(t, 2, counting.open.Load())
	query(a) // a is now the most recent, b the least
	query(c) // evicts b
	require.EqualValues(t, 2, counting.open.Load(), "the cache holds its bound")
	before := counts.prepares.Load()
	query(a)
	query(c)
	require.Equal(t, before, counts.prepares.Load(), "a and c stayed")
	query(b)
	require.Equal(t, before+1, counts.prepares.Load(), "b was dropped and prepared again")

	// Evicted while its rows are open: closed once they are. (One
	// connection, held so that queries can run beside the open rows.)
	conn, err := db.Conn(t.Context())
	require.NoError(t, err)
	rows, err := conn.QueryContext(t.Context(), "SELECT id FROM t ORDER BY id") // evicts c
	require.NoError(t, err)
	require.True(t, rows.Next())
	for _, q := range []string{a, b} { // a evicts b, b evicts the open statement
		var n int
		require.NoError(t, conn.QueryRowContext(t.Context(), q).Scan(&n))
	}
	require.EqualValues(t, 3, counting.open.Load(), "the evicted statement stays while its rows are open")
	var id int64
	require.NoError(t, rows.Scan(&id))
	require.True(t, rows.Next(), "its rows read on after the eviction")
	require.NoError(t, rows.Scan(&id))
	require.EqualValues(t, 2, id)
	require.NoError(t, rows.Close())
	require.EqualValues(t, 2, counting.open.Load(), "closing the rows closed it")
	require.NoError(t, conn.Close())

	require.NoError(t, db.Close())
	require.Zero(t, counting.open.Load(), "closing the handle closed every statement")
}

// TestSQLTheCacheDoesNotTakeRunsAsBefore runs scripts, pragmas and a
// statement SQLite refuses: none is cached, each behaves as without the
// cache.
func TestSQLTheCacheDoesNotTakeRunsAsBefore(t *testing.T) {
	t.Parallel()
	db, counting, _ := openCounted(t, 8)
	_, err := db.Exec("CREATE TABLE u (x integer); INSERT INTO u VALUES (1); INSERT INTO u VALUES (2)")
	require.NoError(t, err)
	var n int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM u").Scan(&n))
	require.Equal(t, 2, n)
	require.NoError(t, db.QueryRow("PRAGMA foreign_keys").Scan(&n))
	require.Equal(t, 1, n, "the DSN's pragmas hold")
	_, err = db.Exec("SELEC 1")
	require.ErrorContains(t, err, "syntax error")
	_, err = db.Exec("SELECT * FROM missing")
	require.ErrorContains(t, err, "no such table")
	require.EqualValues(t, 2, counting.open.Load(), "only the setup's insert and the count were cached")
}

// modernc's own functions on a connection (sqlite.Limit, anything through
// sql.Conn.Raw) find its connection through the cache's wrapper.
func TestModerncFindsItsConnectionThroughTheCache(t *testing.T) {
	db := openCache(t, 16)
	conn, err := db.SQL().Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	_, err = moderncsqlite.Limit(conn, 0 /* SQLITE_LIMIT_LENGTH */, -1)
	require.NoError(t, err)
}

// A statement interrupted in the middle of its step (its context ended)
// is run again afterwards, in and out of a transaction, with the right
// answer: the interrupted step does not leave the cached statement
// half-way through its result.
func TestACachedStatementInterruptedMidStepIsReusedWhole(t *testing.T) {
	t.Parallel()
	db := openCache(t, stmtCacheSize)
	require.NoError(t, db.Create(&sampleRows()[0]).Error)
	const endless = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) SELECT count(*) FROM n`
	for _, inTx := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		var n int64
		q := func(tx *gorm.DB) error { return tx.WithContext(ctx).Raw(endless, 2_000_000_000).Scan(&n).Error }
		var err error
		if inTx {
			err = db.Transaction(q)
		} else {
			err = q(db.DB)
		}
		cancel()
		require.Error(t, err, "interrupted (in a transaction: %v)", inTx)

		require.NoError(t, db.Raw(endless, 1000).Scan(&n).Error)
		require.EqualValues(t, 1000, n, "the same text again, whole")
		require.NoError(t, db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Raw(endless, 10).Scan(&n).Error; err != nil {
				return err
			}
			var r cacheRow
			return tx.First(&r, 1).Error
		}))
		require.EqualValues(t, 10, n)
	}
}

package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/glebarez/sqlite"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	moderncsqlite "modernc.org/sqlite"
)

// Dialect names the database engine behind a DB.
type Dialect string

// The two engines Hub runs on.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

// DB is an open Hub database: the gorm handle and the engine behind it.
type DB struct {
	*gorm.DB
	Dialect Dialect
	URL     string

	stmts *stmtCounts // SQLite's statement cache; nil on Postgres
}

// DialectOf tells which engine a DATABASE_URL names: postgres:// and
// postgresql:// are Postgres, anything else a SQLite path (optionally
// prefixed sqlite: or file:).
func DialectOf(url string) Dialect {
	if strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://") {
		return Postgres
	}
	return SQLite
}

// Open connects to the database a DATABASE_URL names, without migrating.
func Open(ctx context.Context, url string) (*DB, error) {
	return open(ctx, url, stmtCacheSize)
}

// open is Open with the size of SQLite's statement cache (0: none).
func open(ctx context.Context, url string, cacheSize int) (*DB, error) {
	if url == "" {
		return nil, errors.New("open database: DATABASE_URL is empty")
	}
	cfg := &gorm.Config{
		Logger:                 logger.Default.LogMode(logger.Silent),
		NowFunc:                func() time.Time { return time.Now().UTC() },
		SkipDefaultTransaction: true,
		TranslateError:         true,
	}
	d := DialectOf(url)
	var dialector gorm.Dialector
	var stmts *stmtCounts
	switch d {
	case Postgres:
		dialector = postgres.Open(url)
	default:
		if err := unicodeLower(); err != nil {
			return nil, fmt.Errorf("open %s database: %w", d, err)
		}
		dsn := sqliteDSN(url)
		connector, err := moderncsqlite.NewConnector(dsn)
		if err != nil {
			return nil, fmt.Errorf("open %s database: %w", d, err)
		}
		if cacheSize > 0 {
			cache := newStmtCacheConnector(connector, cacheSize)
			connector, stmts = cache, cache.counts
		}
		// An open pool, so its connections are the statement cache's.
		dialector = &sqlite.Dialector{DSN: dsn, Conn: sql.OpenDB(connector)}
	}
	g, err := gorm.Open(dialector, cfg)
	if err != nil {
		if sd, ok := dialector.(*sqlite.Dialector); ok {
			_ = sd.Conn.(*sql.DB).Close()
		}
		return nil, fmt.Errorf("open %s database: %w", d, err)
	}
	sqlDB, err := g.DB()
	if err != nil {
		return nil, fmt.Errorf("open %s database: %w", d, err)
	}
	if d == SQLite {
		// SQLite allows one writer: one connection queues instead of "database is locked".
		sqlDB.SetMaxOpenConns(1)
	} else {
		sqlDB.SetMaxOpenConns(20)
		// database/sql keeps only 2 idle by default, and every other query
		// would pay a login (frame fan-out: ~1,400 → ~4,000 frames/s).
		sqlDB.SetMaxIdleConns(20)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	}
	if err := sqlDB.PingContext(ctx); err != nil {
		_ = sqlDB.Close()
		return nil, fmt.Errorf("open %s database: %w", d, err)
	}
	return &DB{DB: g, Dialect: d, URL: url, stmts: stmts}, nil
}

// UnicodeLower names a SQLite function that lowers every letter as Go's
// strings.ToLower does (SQLite's lower() folds only ASCII). It does not
// replace lower(): indexes built with the built-in must keep their meaning.
const UnicodeLower = "hub_lower"

// unicodeLower registers UnicodeLower, once per process.
var unicodeLower = sync.OnceValue(func() error {
	return moderncsqlite.RegisterDeterministicScalarFunction(UnicodeLower, 1,
		func(_ *moderncsqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			switch v := args[0].(type) {
			case nil:
				return nil, nil
			case string:
				return strings.ToLower(v), nil
			case []byte:
				return strings.ToLower(string(v)), nil
			default:
				return fmt.Sprint(v), nil // numbers lower to their text, as the built-in does
			}
		})
})

// sqliteDSN turns a path into a DSN with the pragmas Hub relies on: foreign
// keys, WAL, a busy timeout. Transactions begin IMMEDIATE: a deferred one
// that reads, then writes after another process (a hub command beside hub
// dev) wrote past its snapshot fails at once with SQLITE_BUSY.
func sqliteDSN(url string) string {
	path := strings.TrimPrefix(strings.TrimPrefix(url, "sqlite:"), "file:")
	if strings.Contains(path, "?") {
		return path
	}
	return path + "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

// SQL returns the underlying database/sql handle.
func (db *DB) SQL() *sql.DB {
	s, err := db.DB.DB()
	if err != nil {
		panic(err) // only when the pool is not a *sql.DB, which Open never makes
	}
	return s
}

// Close closes the connection pool.
func (db *DB) Close() error { return db.SQL().Close() }

// Ping checks the database answers, for readiness checks.
func (db *DB) Ping(ctx context.Context) error { return db.SQL().PingContext(ctx) }

// IsUniqueViolation tells an error a unique index raised, on either
// engine, also one gorm did not translate.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}

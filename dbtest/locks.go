package dbtest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"hub/storage"
)

// RowLock holds a row lock on Postgres for a race test: publishers that
// update the row wait behind it, each with its statement's snapshot
// already taken, and all go at once when it is released.
type RowLock struct {
	t  testing.TB
	db *sql.DB
	tx *sql.Tx
}

// LockRow takes `SELECT … FOR UPDATE` of the row of table whose id is id,
// in a transaction of its own, and holds it until Release (or the test's
// end). Postgres only.
func LockRow(t testing.TB, db *storage.DB, table, id string) *RowLock {
	t.Helper()
	if db.Dialect != storage.Postgres {
		t.Fatalf("LockRow: Postgres only")
	}
	tx, err := db.SQL().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatalf("lock row: %v", err)
	}
	var one int
	if err := tx.QueryRowContext(t.Context(), "SELECT 1 FROM "+table+" WHERE id = $1 FOR UPDATE", id).Scan(&one); err != nil {
		_ = tx.Rollback()
		t.Fatalf("lock row %s of %s: %v", id, table, err)
	}
	l := &RowLock{t: t, db: db.SQL(), tx: tx}
	t.Cleanup(func() { _ = tx.Rollback() })
	return l
}

// AwaitWaiters returns once n other backends of this database wait for a
// lock (the statements racing for the row); it fails the test after 10 s.
func (l *RowLock) AwaitWaiters(n int) {
	l.t.Helper()
	ctx, cancel := context.WithTimeout(l.t.Context(), 10*time.Second)
	defer cancel()
	for {
		var waiting int
		err := l.db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`).Scan(&waiting)
		if err != nil {
			l.t.Fatalf("await lock waiters: %v (%d of %d waiting)", err, waiting, n)
		}
		if waiting >= n {
			return
		}
		select {
		case <-ctx.Done():
			l.t.Fatalf("await lock waiters: %d of %d waiting", waiting, n)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Release ends the lock's transaction: the waiters go.
func (l *RowLock) Release() {
	l.t.Helper()
	if err := l.tx.Commit(); err != nil {
		l.t.Fatalf("release row lock: %v", err)
	}
}

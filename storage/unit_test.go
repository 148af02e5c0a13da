package storage

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func unitDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "hub.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	require.NoError(t, db.Exec("CREATE TABLE rows (id INTEGER PRIMARY KEY)").Error)
	return db
}

func countRows(t *testing.T, db *DB) int64 {
	t.Helper()
	var n int64
	require.NoError(t, db.Raw("SELECT count(*) FROM rows").Scan(&n).Error)
	return n
}

// Every store's statement inside InTx runs in the transaction the context
// carries (on SQLite's one connection the pool would wait forever); a
// nested InTx joins it; what AfterTx registered runs once, after the
// outermost commit, in order.
func TestInTxCarriesOneTransaction(t *testing.T) {
	db := unitDB(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var order []string
	err := db.InTx(ctx, func(ctx context.Context) error {
		require.True(t, db.InTxNow(ctx))
		require.NoError(t, db.Q(ctx).Exec("INSERT INTO rows (id) VALUES (1)").Error)
		AfterTx(ctx, func(err error) {
			require.NoError(t, err)
			order = append(order, "outer")
		})
		return db.InTx(ctx, func(ctx context.Context) error {
			require.NoError(t, db.Q(ctx).Exec("INSERT INTO rows (id) VALUES (2)").Error)
			AfterTx(ctx, func(error) { order = append(order, "inner") })
			require.Empty(t, order, "nothing runs before the outermost commit")
			return nil
		})
	})
	require.NoError(t, err)
	require.Equal(t, []string{"outer", "inner"}, order)
	require.EqualValues(t, 2, countRows(t, db))

	ran := false
	AfterTx(ctx, func(err error) { ran = err == nil })
	require.True(t, ran, "outside a transaction it runs at once")
}

// A nested InTx's error rolls back the whole transaction, and AfterTx
// hears of it.
func TestNestedFailures(t *testing.T) {
	db := unitDB(t)
	ctx := t.Context()
	boom := errors.New("boom")
	var heard error
	err := db.InTx(ctx, func(ctx context.Context) error {
		require.NoError(t, db.Q(ctx).Exec("INSERT INTO rows (id) VALUES (1)").Error)
		AfterTx(ctx, func(err error) { heard = err })
		return db.InTx(ctx, func(context.Context) error { return boom })
	})
	require.ErrorIs(t, err, boom)
	require.ErrorIs(t, heard, boom)
	require.Zero(t, countRows(t, db))
}

// A detached context uses the pool: work that outlives the transaction
// does not touch it.
func TestDetach(t *testing.T) {
	db := unitDB(t)
	var kept context.Context
	require.NoError(t, db.InTx(t.Context(), func(ctx context.Context) error {
		kept = ctx
		require.False(t, db.InTxNow(Detach(ctx)))
		return nil
	}))
	require.Error(t, db.Q(kept).Exec("INSERT INTO rows (id) VALUES (1)").Error, "the ended transaction refuses")
	require.NoError(t, db.Q(Detach(kept)).Exec("INSERT INTO rows (id) VALUES (1)").Error)
	ran := false
	AfterTx(kept, func(err error) { ran = err == nil })
	require.True(t, ran, "registered after the commit: runs at once with its outcome")
}

package storage

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
)

// A transaction that reads first and writes after keeps its write when a
// second process writes the same SQLite file meanwhile: it took the write
// lock at BEGIN (_txlock=immediate), so the other writer waits for it
// (busy timeout) instead of committing past its read, which would make its
// later write fail at once with SQLITE_BUSY.
func TestAReadThenWriteTransactionBesideAnotherProcess(t *testing.T) {
	ctx := context.Background()
	url := "sqlite:" + filepath.Join(t.TempDir(), "hub.db")
	first, err := Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = first.Close() })
	second, err := Open(ctx, url) // as another process would
	require.NoError(t, err)
	t.Cleanup(func() { _ = second.Close() })
	require.NoError(t, first.Exec("CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)").Error)
	require.NoError(t, first.Exec("INSERT INTO counters (id, n) VALUES (1, 0)").Error)

	other := make(chan error, 1)
	err = first.Transaction(func(tx *gorm.DB) error {
		var n int
		if err := tx.Raw("SELECT n FROM counters WHERE id = 1").Scan(&n).Error; err != nil {
			return err
		}
		go func() { other <- second.Exec("UPDATE counters SET n = n + 10 WHERE id = 1").Error }()
		// The other writer cannot be seen waiting for the lock, only
		// finishing: give it the time to commit past this read, as it
		// would with a deferred BEGIN.
		select {
		case err := <-other:
			other <- err
		case <-time.After(200 * time.Millisecond):
		}
		return tx.Exec("UPDATE counters SET n = ? WHERE id = 1", n+1).Error
	})
	require.NoError(t, err, "the transaction that read first keeps its write")
	require.NoError(t, <-other, "the other writer waited for it")
	var n int
	require.NoError(t, first.Raw("SELECT n FROM counters WHERE id = 1").Scan(&n).Error)
	require.Equal(t, 11, n)
}

package dbtest

import (
	"testing"

	"hub/storage"
)

// FailOnce makes the first create or update (op) of a row of table on db,
// and of every session made from it, fail with err before it is sent: a
// worker that dies at that write, for the tests of what a retry finds.
// The hook is removed when the test ends (storage.DB.FailOnce).
func FailOnce(t testing.TB, db *storage.DB, op, table string, err error) {
	t.Helper()
	remove, rerr := db.FailOnce(op, table, err)
	if rerr != nil {
		t.Fatal(rerr)
	}
	t.Cleanup(remove)
}

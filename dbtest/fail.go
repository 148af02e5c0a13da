package dbtest

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"

	"hub/storage"
)

var failers atomic.Int64

// FailOnce makes the first create or update (op) of a row of table on db,
// and of every session made from it, fail with err before it is sent: a
// worker that dies at that write, for the tests of what a retry finds.
// The hook is removed when the test ends.
func FailOnce(t testing.TB, db *storage.DB, op, table string, err error) {
	t.Helper()
	var once sync.Once
	hook := func(tx *gorm.DB) {
		if tx.Statement.Table == table {
			once.Do(func() { _ = tx.AddError(err) })
		}
	}
	name := "dbtest:fail:" + strconv.FormatInt(failers.Add(1), 10)
	switch op {
	case "create":
		cb := db.Callback().Create()
		if rerr := cb.Before("gorm:create").Register(name, hook); rerr != nil {
			t.Fatal(rerr)
		}
		t.Cleanup(func() { _ = cb.Remove(name) })
	case "update":
		cb := db.Callback().Update()
		if rerr := cb.Before("gorm:update").Register(name, hook); rerr != nil {
			t.Fatal(rerr)
		}
		t.Cleanup(func() { _ = cb.Remove(name) })
	default:
		t.Fatalf("dbtest.FailOnce: op %q is not create or update", op)
	}
}

package storage

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"gorm.io/gorm"
)

var failers atomic.Int64

// FailOnce makes the first create or update (op) of a row of table on db,
// and of every session made from it, fail with err before it is sent: a
// test's stand-in for a worker that dies at that write. Call the returned
// func to remove the hook. It lives here, beside the handle it hooks, so
// no gorm handle leaves this package.
func (db *DB) FailOnce(op, table string, err error) (remove func(), _ error) {
	var once sync.Once
	hook := func(tx *gorm.DB) {
		if tx.Statement.Table == table {
			once.Do(func() { _ = tx.AddError(err) })
		}
	}
	name := "storage:fail:" + strconv.FormatInt(failers.Add(1), 10)
	switch op {
	case "create":
		cb := db.Callback().Create()
		return func() { _ = cb.Remove(name) }, cb.Before("gorm:create").Register(name, hook)
	case "update":
		cb := db.Callback().Update()
		return func() { _ = cb.Remove(name) }, cb.Before("gorm:update").Register(name, hook)
	}
	return nil, fmt.Errorf("FailOnce: op %q is not create or update", op)
}

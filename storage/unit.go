package storage

import (
	"context"
	"sync"

	"gorm.io/gorm"
)

// A unit of work is one database transaction carried in a context. It is
// Hub's one way for writes of different stores to commit together: InTx
// begins it and hands fn a context that carries it; every store takes its
// handle from the context (Q), so any store's ordinary method called with
// that context runs in the transaction. No database handle crosses a
// package boundary.
//
// Nesting: InTx with a context that already carries a transaction of the
// same DB runs fn in that transaction as it is, without a savepoint. An
// error fn returns rolls back the outermost transaction when it reaches
// it; no caller carries on after a nested failure (on Postgres a failed
// statement aborts the whole transaction anyway), and a savepoint's
// statements would cost round trips and save nothing.
//
// SQLite has one connection (Open): inside a transaction a statement that
// used the pool would wait for that connection forever. Q guarantees the
// transaction's handle as long as the context is passed on; a context
// that outlives the transaction (given to a goroutine or a background job
// started inside fn, or kept after fn returned) must be Detach'ed.
type unit struct {
	root *gorm.DB // the pool's handle the transaction was begun on
	tx   *gorm.DB

	mu     sync.Mutex
	after  []func(err error)
	ended  bool // the transaction has ended, with err
	err    error
	locals map[any]any // Local's values
}

type unitKey struct{}

// unitOf returns the transaction ctx carries on db, or nil.
func unitOf(ctx context.Context, db *gorm.DB) *unit {
	u, _ := ctx.Value(unitKey{}).(*unit)
	if u == nil || u.root != db {
		return nil
	}
	return u
}

// InTx runs fn in one transaction, whose handle the context fn is given
// carries, and commits when fn returns nil. With a context that already
// carries a transaction of db, fn runs in that one (see unit). Once the
// outermost transaction ended, what AfterTx registered in it runs, in the
// order it was registered.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if unitOf(ctx, db.DB) != nil {
		return fn(ctx)
	}
	u := &unit{root: db.DB}
	err := db.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		u.tx = tx
		return fn(context.WithValue(ctx, unitKey{}, u))
	})
	u.mu.Lock()
	after := u.after
	u.after, u.ended, u.err = nil, true, err
	u.mu.Unlock()
	for _, f := range after {
		f(err)
	}
	return err
}

// Q is the handle a store queries db through: the transaction ctx carries
// (InTx), else the pool.
func (db *DB) Q(ctx context.Context) *gorm.DB {
	if u := unitOf(ctx, db.DB); u != nil {
		return u.tx.WithContext(ctx)
	}
	return db.DB.WithContext(ctx)
}

// InTxNow tells whether ctx carries a transaction of db.
func (db *DB) InTxNow(ctx context.Context) bool { return unitOf(ctx, db.DB) != nil }

// AfterTx runs fn once the transaction ctx carries has ended, with its
// error (nil: committed); at once, with nil, when ctx carries none. It is
// how work that must follow a commit (handing frames to this process's
// followers, waking the work feed, telling subscribers of changes) waits
// for it: nothing hears of a row before it can be read. fn is also given
// an error the commit returned whose answer was lost, so it must take a
// non-nil error as "maybe committed": wake followers to read (a needless
// read costs little), never hand them what may not exist.
func AfterTx(ctx context.Context, fn func(err error)) {
	u, _ := ctx.Value(unitKey{}).(*unit)
	if u == nil {
		fn(nil)
		return
	}
	u.mu.Lock()
	if u.ended { // a context kept after its transaction ended
		err := u.err
		u.mu.Unlock()
		fn(err)
		return
	}
	defer u.mu.Unlock()
	u.after = append(u.after, fn)
}

// Detach returns ctx without its transaction, for work that outlives it:
// a goroutine or a background job started inside InTx, or a context kept
// after fn returned. Its statements use the pool.
func Detach(ctx context.Context) context.Context {
	if ctx.Value(unitKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, unitKey{}, (*unit)(nil))
}

// Local returns the value the transaction ctx carries keeps under key,
// made by make on first use; nil outside a transaction. It is how a store
// keeps what belongs to one transaction, whoever began it (workspace: the
// changes to tell subscribers of once it commits, the roles it read).
func Local(ctx context.Context, key any, make func() any) any {
	u, _ := ctx.Value(unitKey{}).(*unit)
	if u == nil {
		return nil
	}
	u.mu.Lock()
	v, ok := u.locals[key]
	u.mu.Unlock()
	if ok {
		return v
	}
	v = make() // outside the lock: make may call AfterTx
	u.mu.Lock()
	defer u.mu.Unlock()
	if have, ok := u.locals[key]; ok {
		return have
	}
	if u.locals == nil {
		u.locals = map[any]any{}
	}
	u.locals[key] = v
	return v
}

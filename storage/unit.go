package storage

import (
	"context"
	"sync"

	"gorm.io/gorm"
)

// A unit of work is one database transaction carried in a context: Hub's
// one way for writes of different stores to commit together, since every
// store takes its handle from the context (Q).
//
// A nested InTx runs in the outer transaction without a savepoint: no
// caller carries on after a nested failure (on Postgres a failed statement
// aborts the transaction anyway).
//
// SQLite has one connection: inside a transaction a statement on the pool
// would wait forever. A context that outlives the transaction must be
// Detach'ed.
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

// InTx runs fn in one transaction its context carries (or the one ctx
// carries already) and commits when fn returns nil; then what AfterTx
// registered runs, in order.
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
// error (nil: committed); at once, with nil, when ctx carries none: nothing
// hears of a row before it can be read. A commit whose answer was lost
// also gives an error, so fn must take one as "maybe committed".
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

// Detach returns ctx without its transaction, for work that outlives it.
func Detach(ctx context.Context) context.Context {
	if ctx.Value(unitKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, unitKey{}, (*unit)(nil))
}

// Local returns the value the transaction ctx carries keeps under key,
// made by make on first use; nil outside a transaction.
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

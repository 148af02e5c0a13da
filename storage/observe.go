package storage

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// Statement is what an Observer is told of a statement once it ran.
type Statement struct {
	SQL  string // the text sent, with placeholders: never the values
	Rows int64  // rows affected
	Err  error  // nil, or the statement's error (gorm.ErrRecordNotFound is none)
}

// Observer watches the statements run on a DB and everything made from it:
// the one place gorm's callbacks are hooked (traces, dbtest).
type Observer struct {
	// Before, if set, runs ahead of each statement and returns what After
	// is given (nil: After is not called for it).
	Before func(ctx context.Context, op, dialect string) any
	After  func(state any, st Statement)
}

var observedOps = []string{"create", "query", "update", "delete", "row", "raw"}

// Observe adds o under name until remove is called, which must wait until
// nothing runs statements on db (gorm does not guard its callbacks).
func (db *DB) Observe(name string, o Observer) (remove func(), err error) {
	cb := db.Callback()
	key := "hub:observe:" + name
	type point struct {
		before, after interface {
			Register(string, func(*gorm.DB)) error
		}
		remove func(string) error
	}
	points := map[string]point{
		"create": {cb.Create().Before("gorm:create"), cb.Create().After("gorm:create"), cb.Create().Remove},
		"query":  {cb.Query().Before("gorm:query"), cb.Query().After("gorm:query"), cb.Query().Remove},
		"update": {cb.Update().Before("gorm:update"), cb.Update().After("gorm:update"), cb.Update().Remove},
		"delete": {cb.Delete().Before("gorm:delete"), cb.Delete().After("gorm:delete"), cb.Delete().Remove},
		"row":    {cb.Row().Before("gorm:row"), cb.Row().After("gorm:row"), cb.Row().Remove},
		"raw":    {cb.Raw().Before("gorm:raw"), cb.Raw().After("gorm:raw"), cb.Raw().Remove},
	}
	after := func(g *gorm.DB) {
		var state any = struct{}{}
		if o.Before != nil {
			v, ok := g.Statement.Settings.LoadAndDelete(key)
			if !ok {
				return
			}
			state = v
		}
		err := g.Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			err = nil
		}
		o.After(state, Statement{SQL: g.Statement.SQL.String(), Rows: g.Statement.RowsAffected, Err: err})
	}
	remove = func() {
		for _, op := range observedOps {
			_ = points[op].remove(key + ":before")
			_ = points[op].remove(key + ":after")
		}
	}
	for _, op := range observedOps {
		p := points[op]
		if o.Before != nil {
			if err := p.before.Register(key+":before", func(g *gorm.DB) {
				ctx := g.Statement.Context
				if ctx == nil {
					ctx = context.Background()
				}
				if v := o.Before(ctx, op, g.Dialector.Name()); v != nil {
					g.Statement.Settings.Store(key, v)
				}
			}); err != nil {
				remove()
				return nil, fmt.Errorf("observe statements (%s): %w", op, err)
			}
		}
		if err := p.after.Register(key+":after", after); err != nil {
			remove()
			return nil, fmt.Errorf("observe statements (%s): %w", op, err)
		}
	}
	return remove, nil
}

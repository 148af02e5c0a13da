package models

import (
	"context"

	"gorm.io/gorm"
)

// Tx is one open database transaction that the stores of different
// packages share, so that what they write commits together or not at all:
// a tool's records and the row that says what became of the call.
// workspace.Service.Tx opens it (the one place that does, so the Service
// that delivers a transaction's change notifications always sees its
// commit) and hands it out with Service.Shared; chat.Store.In joins it.
// A Tx is only valid inside the function it was given to.
type Tx struct{ db *gorm.DB }

// Transaction runs fn in one transaction on db, a savepoint when db is
// itself in a transaction, and commits when fn returns nil.
func Transaction(ctx context.Context, db *gorm.DB, fn func(tx *Tx) error) error {
	return db.WithContext(ctx).Transaction(func(g *gorm.DB) error { return fn(&Tx{db: g}) })
}

// Handle is the transaction's gorm handle, for a store that joins it.
func (t *Tx) Handle() *gorm.DB { return t.db }

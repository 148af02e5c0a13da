// Package sqlite stands in for github.com/glebarez/go-sqlite (see the
// replace directive in Hub's go.mod).
//
// Why: the gorm dialector github.com/glebarez/sqlite imports
// glebarez/go-sqlite, which registers a database/sql driver named "sqlite".
// The embedded Temporal server imports modernc.org/sqlite, which registers
// the same name, and a second registration panics at start. glebarez's
// driver is a fork of modernc's, so this shim lets both use modernc's one
// registration: the dialector only needs the driver name and the Error
// type for translating constraint violations.
package sqlite

import "modernc.org/sqlite"

// Error is the SQLite error type the dialector inspects.
type Error = sqlite.Error

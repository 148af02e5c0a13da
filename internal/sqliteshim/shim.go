// Package sqlite stands in for github.com/glebarez/go-sqlite (see the
// replace directive in Hub's go.mod). That driver, which the gorm dialector
// github.com/glebarez/sqlite imports, and modernc.org/sqlite, which the
// embedded Temporal server imports, both register the database/sql driver
// "sqlite", and a second registration panics at start. glebarez's driver is
// a fork of modernc's, so the dialector can use modernc's one registration:
// it needs only the driver name and the Error type.
package sqlite

import "modernc.org/sqlite"

// Error is the SQLite error type the dialector inspects.
type Error = sqlite.Error

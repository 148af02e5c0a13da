// Package storage holds Hub's database rows, opens the database (Postgres in
// production, a SQLite file in `hub dev`) and runs the versioned SQL
// migrations for both.
//
// Rows are gorm structs that never leave the packages that store them, which
// convert them to their own types, so a column rename never changes an API
// response or a workflow payload. A transaction is carried in the context
// (DB.InTx, unit.go), not by a handle.
package storage

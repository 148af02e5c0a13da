// Package storage holds Hub's database rows, opens the database (Postgres in
// production, a SQLite file in `hub dev`) and runs the versioned SQL
// migrations for both.
//
// Rows are gorm structs and never leave the packages that store them: the
// workspace domain (package workspace), the frame store (package stream) and the
// activities convert them to their own types by named functions, so a column
// rename never changes an API response or a workflow payload.
//
// No database handle crosses those packages: a transaction is carried in
// the context (DB.InTx, unit.go), and every store queries through the one
// the context carries (DB.Q), so a tool call's records and its outcome row
// commit together by being written inside one InTx.
package storage

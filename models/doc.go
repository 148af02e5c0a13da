// Package models holds Hub's database rows, opens the database (Postgres in
// production, a SQLite file in `hub dev`) and runs the versioned SQL
// migrations for both.
//
// Rows are gorm structs and never leave the packages that store them: the
// workspace domain (package workspace), the frame store (package stream) and the
// activities convert them to their own types by named functions, so a column
// rename never changes an API response or a workflow payload.
//
// Tx is the one database handle that crosses those packages: a transaction
// workspace.Service.Tx opened, which chat.Store.In joins, so a tool call's
// records and its outcome row commit together.
package models

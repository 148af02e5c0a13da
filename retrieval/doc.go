// Package retrieval makes a space's files, tasks and projects searchable
// and searches them for a person: the passages (storage.Passage) a file is
// cut into, their lexical index (Postgres full text, SQLite FTS5) and the
// queries that rank them, with the person's access to the space inside
// the ranking query, never applied to its results.
//
// A file is indexed by the IndexFile workflow (package workflows): its
// text extracted and cut into chunks, saved as drafts, published in one
// transaction. Tasks and projects need no workflow: triggers keep their
// one passage each in the transaction that changes them (migration 00036).
package retrieval

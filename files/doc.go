// Package files keeps the files people attach in a space: their contents in
// a blob store (a local directory in `hub dev` and the tests, an
// S3-compatible bucket such as MinIO in production) and their names, types
// and sizes in the database. Access is the space's: a file of a space the
// person cannot open is not found, exactly like one that does not exist.
//
// The type of a file is decided from its bytes (and, for text, its name's
// extension), never from what the client declares, and only the types the
// assistant can show a model are taken (Sniff).
package files

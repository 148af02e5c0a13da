// Package files keeps the files people attach in a space: their contents in
// a blob store (a local directory, or an S3-compatible bucket such as MinIO)
// and their names, types and sizes in the database. A file of a space the
// person cannot open is not found, like one that does not exist. A file's
// type is decided from its bytes (Sniff), never from what the client says.
package files

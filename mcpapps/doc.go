// Package mcpapps connects MCP servers (Streamable HTTP, through the
// official Go SDK) as connected apps: it lists a server's tools, keeps the
// listing in the database, turns each listed tool into a tools.Definition
// the bounded offer can show, and calls it.
//
// Every connection goes through the private-network guard (apps.Guard), a
// bearer secret is opened only to be sent, and everything is bounded in time
// and size. A server that hangs or answers garbage is recorded as failing
// and the turn goes on without it.
//
// A tool with readOnlyHint runs at once as a read; every other tool is an
// outside write: held for Apply whatever the write policy and run by
// package toolrun outside any transaction, once ("sending" before it goes,
// "unknown" when the answer is lost).
package mcpapps

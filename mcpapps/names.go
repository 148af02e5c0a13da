package mcpapps

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Prefix starts every MCP tool's name in Hub.
const Prefix = "mcp_"

// maxToolName is the longest function name OpenAI-style APIs take.
const maxToolName = 64

// shortID is the part of a connection id in its tools' names: enough to
// keep two servers of a space apart, stable for the connection's life.
func shortID(connID string) string {
	id := strings.TrimPrefix(connID, "conn_")
	return id[:min(len(id), 8)]
}

// ToolName is an MCP tool's name in Hub: mcp_<short connection id>_<the
// server's name>, written with only [a-zA-Z0-9_-] and at most 64
// characters. A name that had to be changed or cut ends in a hash of the
// server's own name, so the same tool always gets the same name and two
// different tools never share one.
func ToolName(connID, tool string) string {
	head := Prefix + shortID(connID) + "_"
	var b strings.Builder
	changed := false
	for _, r := range tool {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
			changed = true
		}
	}
	clean := b.String()
	if !changed && len(head)+len(clean) <= maxToolName && clean != "" {
		return head + clean
	}
	sum := sha256.Sum256([]byte(tool))
	tag := "_" + hex.EncodeToString(sum[:3])
	if room := maxToolName - len(head) - len(tag); len(clean) > room {
		clean = clean[:room]
	}
	return head + clean + tag
}

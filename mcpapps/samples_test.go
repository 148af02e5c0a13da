package mcpapps_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/mcpapps"
)

// The largest MCP tool a listing keeps, read and write, is in the prompt
// catalog and within its budget: a longer wrapper or a larger schema limit
// fails here.
func TestSampleToolsWithinBudget(t *testing.T) {
	t.Parallel()
	found := 0
	for _, p := range assistant.Catalog(mcpapps.SampleTools()...) {
		if !strings.HasPrefix(p.Name, "tool.mcp_") {
			continue
		}
		found++
		require.Equal(t, assistant.AppToolBudget, p.Budget)
		require.LessOrEqual(t, p.Tokens(), p.Budget, "%s is over its budget", p.Name)
		require.Greater(t, len(p.Text), mcpapps.MaxDescription+mcpapps.MaxSchemaBytes*9/10, "%s is at the limits", p.Name)
	}
	require.Equal(t, 2, found, "a read tool and a write tool")
}

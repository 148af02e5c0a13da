package assistant

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// hub_read_surface is in the offer exactly when the message's page context
// names a view it reads: reserved then, so a large registry never crowds it
// out, and absent otherwise (without a page, another app's, or a page it
// does not read, it would only answer an error).
func TestReadSurfaceIsOfferedOnlyWithAViewOnScreen(t *testing.T) {
	t.Parallel()
	all := shippedPlaybooks(t)
	for _, extra := range []int{0, 1500} {
		reg := EvalRegistry(all, extra)
		in := owner(reg, all, "move the overdue ones to Friday")
		for _, page := range []string{"", `{"path":"/settings/connections"}`, `{"app":"jira","path":"/browse/PROJ-1"}`, `not json`} {
			in.Page = page
			require.NotContains(t, BuildOffer(in).Tools, tools.ReadSurfaceTool, "page %q, %d extra tools", page, extra)
		}
		for _, page := range []string{
			`{"path":"/tasks","filters":{"status":"todo"},"selectedIds":["task_1"]}`,
			`{"path":"/spaces/s1/projects/p1"}`,
			`{"surface":{"kind":"board"},"open":{"kind":"task","id":"task_1"}}`,
		} {
			in.Page = page
			got := BuildOffer(in).Tools
			require.Contains(t, got, tools.ReadSurfaceTool, "page %q, %d extra tools", page, extra)
			require.LessOrEqual(t, len(got), MaxOfferedTools)
			require.Contains(t, got, "hub_update_tasks", "the request's own tool still fits")
			requireNoDuplicates(t, got)
		}

		// A viewer reads their screen too; a simple to-do keeps its five.
		in.Page = `{"path":"/tasks"}`
		in.Role = workspace.RoleViewer
		require.Contains(t, BuildOffer(in).Tools, tools.ReadSurfaceTool)
		in.Role, in.Message = workspace.RoleOwner, "remind me to call the bank"
		require.NotContains(t, BuildOffer(in).Tools, tools.ReadSurfaceTool, "the simple to-do shape keeps its five tools")
	}
}

package tools_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// Dispatch runs every check, and the tool's prepare step, before the tool:
// a refused call changes nothing.
func TestDispatchChecksBeforeRunning(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		offered := []string{"hub_create_tasks", "hub_delete_tasks"}
		call := tools.Call{Name: "hub_create_tasks", Arguments: `{"tasks":[{"title":"Only checked"}]}`, Offered: offered}

		_, err := f.reg.Dispatch(ctx, f.env(f.viewer, workspace.RoleViewer), call)
		require.NotNil(t, err)
		require.Equal(t, tools.CodeForbidden, err.Code)

		_, err = f.reg.Dispatch(ctx, f.env(f.owner, workspace.RoleOwner), tools.Call{Name: "hub_create_tasks", Arguments: `{"tasks":[{}]}`, Offered: offered})
		require.Equal(t, tools.CodeInvalidPayload, err.Code)
		require.Equal(t, "/tasks/0/title", err.Path)

		_, err = f.reg.Dispatch(ctx, f.env(f.owner, workspace.RoleOwner), tools.Call{Name: "hub_list_tasks", Arguments: `{}`, Offered: offered})
		require.Equal(t, tools.CodeUnknownTool, err.Code, "not offered")

		env := f.env(f.owner, workspace.RoleOwner)
		env.Settings.AllowedWriteAreas = []string{"projects"}
		_, err = f.reg.Dispatch(ctx, env, call)
		require.Equal(t, tools.CodeRefused, err.Code, "an area the settings switch off")
		require.Zero(t, f.taskCount(t), "no refused call wrote")

		// Prepare runs first: deleting "all" of nothing is not found.
		_, err = f.reg.Dispatch(ctx, f.env(f.owner, workspace.RoleOwner), tools.Call{Name: "hub_delete_tasks", Arguments: `{"all":true}`, Offered: offered})
		require.Equal(t, tools.CodeNotFound, err.Code)
	})
}

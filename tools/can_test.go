package tools_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// Can runs every check Dispatch runs and changes nothing.
func TestCanChecksWithoutRunning(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		offered := []string{"hub_create_tasks", "hub_delete_tasks"}
		call := tools.Call{Name: "hub_create_tasks", Arguments: `{"tasks":[{"title":"Only checked"}]}`, Offered: offered}

		require.Nil(t, f.reg.Can(ctx, f.env(f.owner, workspace.RoleOwner), call))
		require.Zero(t, f.taskCount(t), "Can wrote nothing")

		err := f.reg.Can(ctx, f.env(f.viewer, workspace.RoleViewer), call)
		require.NotNil(t, err)
		require.Equal(t, tools.CodeForbidden, err.Code)

		err = f.reg.Can(ctx, f.env(f.owner, workspace.RoleOwner), tools.Call{Name: "hub_create_tasks", Arguments: `{"tasks":[{}]}`, Offered: offered})
		require.Equal(t, tools.CodeInvalidPayload, err.Code)
		require.Equal(t, "/tasks/0/title", err.Path)

		err = f.reg.Can(ctx, f.env(f.owner, workspace.RoleOwner), tools.Call{Name: "hub_list_tasks", Arguments: `{}`, Offered: offered})
		require.Equal(t, tools.CodeUnknownTool, err.Code, "not offered")

		env := f.env(f.owner, workspace.RoleOwner)
		env.Settings.AllowedWriteAreas = []string{"projects"}
		err = f.reg.Can(ctx, env, call)
		require.Equal(t, tools.CodeRefused, err.Code, "an area the settings switch off")

		// Prepare runs in Can too: deleting "all" of nothing is not found.
		err = f.reg.Can(ctx, f.env(f.owner, workspace.RoleOwner), tools.Call{Name: "hub_delete_tasks", Arguments: `{"all":true}`, Offered: offered})
		require.Equal(t, tools.CodeNotFound, err.Code)
		require.Zero(t, f.taskCount(t))
	})
}

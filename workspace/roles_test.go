package workspace_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

// A turn across spaces is offered the tools of the role that may do most.
func TestWidest(t *testing.T) {
	t.Parallel()
	require.Equal(t, workspace.Role(""), workspace.Widest())
	require.Equal(t, workspace.RoleViewer, workspace.Widest(workspace.RoleViewer))
	require.Equal(t, workspace.RoleGuest, workspace.Widest(workspace.RoleViewer, workspace.RoleGuest))
	require.Equal(t, workspace.RoleEditor, workspace.Widest(workspace.RoleGuest, workspace.RoleEditor, workspace.RoleViewer))
	require.Equal(t, workspace.RoleOwner, workspace.Widest(workspace.RoleEditor, workspace.RoleOwner, workspace.RoleViewer))
	require.Equal(t, workspace.RoleViewer, workspace.Widest("bogus", workspace.RoleViewer))
}

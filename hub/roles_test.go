package hub_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/hub"
)

// A turn across spaces is offered the tools of the role that may do most.
func TestWidest(t *testing.T) {
	t.Parallel()
	require.Equal(t, hub.Role(""), hub.Widest())
	require.Equal(t, hub.RoleViewer, hub.Widest(hub.RoleViewer))
	require.Equal(t, hub.RoleGuest, hub.Widest(hub.RoleViewer, hub.RoleGuest))
	require.Equal(t, hub.RoleEditor, hub.Widest(hub.RoleGuest, hub.RoleEditor, hub.RoleViewer))
	require.Equal(t, hub.RoleOwner, hub.Widest(hub.RoleEditor, hub.RoleOwner, hub.RoleViewer))
	require.Equal(t, hub.RoleViewer, hub.Widest("bogus", hub.RoleViewer))
}

package workspace_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

func TestSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		me := f.editor.PersonID
		st, err := f.svc.GetSettings(ctx, me)
		require.NoError(t, err)
		require.Equal(t, workspace.Settings{WritePolicy: workspace.PolicyImmediate}, st, "defaults when nothing is saved")
		require.True(t, st.AllowsArea("tasks"), "no list allows every area")
		require.False(t, st.ConnectedAppWrites, "connected-app writes are off by default")

		// Each area once, in the order given.
		st, err = f.svc.UpdateSettings(ctx, me, workspace.SettingsPatch{AllowedWriteAreas: &[]string{"tasks", "apps", "tasks"}})
		require.NoError(t, err)
		require.Equal(t, workspace.Settings{WritePolicy: workspace.PolicyImmediate, AllowedWriteAreas: []string{"tasks", "apps"}}, st)
		st, err = f.svc.UpdateSettings(ctx, me, workspace.SettingsPatch{ConnectedAppWrites: ptr(true)})
		require.NoError(t, err)
		st, err = f.svc.UpdateSettings(ctx, me, workspace.SettingsPatch{WritePolicy: ptr(workspace.PolicyPreview)})
		require.NoError(t, err)
		want := workspace.Settings{WritePolicy: workspace.PolicyPreview, AllowedWriteAreas: []string{"tasks", "apps"}, ConnectedAppWrites: true}
		require.Equal(t, want, st, "a patch keeps what it does not set")
		st, err = f.svc.GetSettings(ctx, me)
		require.NoError(t, err)
		require.Equal(t, want, st, "saved")
		require.True(t, st.AllowsArea("apps"))
		require.False(t, st.AllowsArea("projects"))

		other, err := f.svc.GetSettings(ctx, f.owner.PersonID)
		require.NoError(t, err)
		require.Equal(t, workspace.Settings{WritePolicy: workspace.PolicyImmediate}, other, "settings are a person's own")

		// An empty list allows every area again.
		st, err = f.svc.UpdateSettings(ctx, me, workspace.SettingsPatch{AllowedWriteAreas: &[]string{}, ConnectedAppWrites: ptr(false)})
		require.NoError(t, err)
		require.Equal(t, workspace.Settings{WritePolicy: workspace.PolicyPreview}, st)
		st, err = f.svc.GetSettings(ctx, me)
		require.NoError(t, err)
		require.Equal(t, workspace.Settings{WritePolicy: workspace.PolicyPreview}, st)
		require.True(t, st.AllowsArea("projects"))
	})
}

func TestSettingsRefuseUnknownValues(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		me := f.editor.PersonID
		_, err := f.svc.UpdateSettings(ctx, me, workspace.SettingsPatch{AllowedWriteAreas: &[]string{"tasks", "calendar"}})
		requireInvalid(t, err, "/allowedWriteAreas/1")
		require.Contains(t, err.Error(), `"calendar"`)
		_, err = f.svc.UpdateSettings(ctx, me, workspace.SettingsPatch{WritePolicy: ptr("sometimes"), ConnectedAppWrites: ptr(true)})
		requireInvalid(t, err, "/writePolicy")
		st, err := f.svc.GetSettings(ctx, me)
		require.NoError(t, err)
		require.Equal(t, workspace.Settings{WritePolicy: workspace.PolicyImmediate}, st, "a refused patch changes nothing")
	})
}

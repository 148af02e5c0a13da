package hubtest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/hubtest"
	"hub/storage"
	"hub/workspace"
)

// A test's Hub is `hub dev`'s: configured from its environment (the time
// zone reaches the activities) and swept in the background as `hub worker`
// sweeps — an expired token disappears without the test asking.
func TestStackIsConfiguredAndSweptAsHubWorker(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{SQLite: true, NoModel: true, Env: map[string]string{"HUB_TIME_ZONE": "Europe/Berlin"},
		SweepEvery: 20 * time.Millisecond})
	require.Equal(t, "Europe/Berlin", s.Activities.Location.String())
	require.Equal(t, "Europe/Berlin", s.Config().TimeZone.String())
	require.Equal(t, http.StatusOK, s.Do(t, "", "GET", "/readyz", nil).Status)

	ctx := context.Background()
	_, err := s.Workspace.CreateToken(ctx, s.OwnerID, workspace.StreamScope("turn_x"), time.Hour)
	require.NoError(t, err)
	require.NoError(t, s.DB.WithContext(ctx).Model(&storage.APIToken{}).Where("scope = ?", workspace.StreamScope("turn_x")).Update("expires_at", time.Now().Add(-time.Second).UTC()).Error)
	require.Eventually(t, func() bool {
		var n int64
		require.NoError(t, s.DB.WithContext(ctx).Model(&storage.APIToken{}).Where("scope = ?", workspace.StreamScope("turn_x")).Count(&n).Error)
		return n == 0
	}, 10*time.Second, 20*time.Millisecond, "the stack's sweeper deletes the expired token")
	require.Equal(t, http.StatusOK, s.Do(t, s.Token, "GET", "/api/spaces", nil).Status, "the owner's token stays")
}

package workspace_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/storage"
	"hub/workspace"
)

// TestTokenLastUseIsWrittenOnceAMinute: the first use writes the time, a
// use within a minute writes nothing (no statement at all), one a minute
// later writes again.
func TestTokenLastUseIsWrittenOnceAMinute(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
		f.svc.SetNow(func() time.Time { return now })
		token, info, err := f.svc.CreateNamedToken(ctx, workspace.Actor{Via: workspace.ViaCLI}, f.owner.PersonID, "laptop", 0)
		require.NoError(t, err)
		require.Nil(t, info.LastUsedAt)
		lastUse := func() *time.Time {
			var row storage.APIToken
			require.NoError(t, f.db.Where("id = ?", info.ID).Take(&row).Error)
			return row.LastUsedAt
		}

		_, err = f.svc.Authenticate(ctx, token, "")
		require.NoError(t, err)
		require.WithinDuration(t, now, *lastUse(), time.Second)

		now = now.Add(59 * time.Second)
		_, err = f.svc.Authenticate(ctx, token, "")
		require.NoError(t, err)
		require.WithinDuration(t, now.Add(-59*time.Second), *lastUse(), time.Second)

		now = now.Add(time.Second)
		_, err = f.svc.Authenticate(ctx, token, "")
		require.NoError(t, err)
		require.WithinDuration(t, now, *lastUse(), time.Second)
	})
}

// TestExpiredTokenIsAuditedOnce: the sweep deletes an expired token and
// records it in its person's space once; a second sweep records nothing.
// A token derived from it never outlives it, and goes with it.
func TestExpiredTokenIsAuditedOnce(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
		f.svc.SetNow(func() time.Time { return now })
		token, info, err := f.svc.CreateNamedToken(ctx, workspace.Actor{Via: workspace.ViaCLI}, f.owner.PersonID, "brief", time.Minute)
		require.NoError(t, err)
		p, err := f.svc.Authenticate(ctx, token, "")
		require.NoError(t, err)
		require.Equal(t, info.ID, p.RootTokenID)
		_, exp, err := f.svc.CreateDerivedToken(ctx, p, workspace.ActivityScope, 2*time.Hour)
		require.NoError(t, err)
		require.Equal(t, now.Add(time.Minute), exp.UTC(), "no later than its parent")

		now = now.Add(time.Minute)
		_, err = f.svc.Authenticate(ctx, token, "")
		require.ErrorIs(t, err, workspace.ErrUnauthenticated)
		alive, err := f.svc.TokenAlive(ctx, info.ID)
		require.NoError(t, err)
		require.False(t, alive)
		n, err := f.svc.DeleteExpiredTokens(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "the token (its derived one goes with it)")
		var derived int64
		require.NoError(t, f.db.Model(&storage.APIToken{}).Where("parent_id = ?", info.ID).Count(&derived).Error)
		require.Zero(t, derived)
		n, err = f.svc.DeleteExpiredTokens(ctx)
		require.NoError(t, err)
		require.Zero(t, n)

		var events []storage.AuditEvent
		require.NoError(t, f.db.Where("kind = ?", workspace.AuditToken).Order("created_at, id").Find(&events).Error)
		require.Len(t, events, 2)
		require.Equal(t, workspace.AuditCreated, events[0].Action)
		require.Equal(t, workspace.ViaCLI, events[0].Via)
		require.Equal(t, workspace.AuditExpired, events[1].Action)
		require.Equal(t, workspace.ViaSweep, events[1].Via)
		require.Equal(t, info.ID, events[1].TargetID)
		require.NotContains(t, events[1].Summary+events[1].Changes, token)
	})
}

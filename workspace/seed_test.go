package workspace_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/workspace"
)

// TestSeedAccessAnswersTheTransactionsChecks: the access and settings a
// query of a transaction read along with its own rows (AccessColumns,
// seeded with SeedAccess) answer that transaction's checks — a viewer is
// refused a write, the settings are the ones read — with no read of their
// own; outside a transaction the seed does nothing.
func TestSeedAccessAnswersTheTransactionsChecks(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		viewer := string(workspace.RoleViewer)
		policy := string(workspace.PolicyNeedsMe)
		read := workspace.ActivityRead{Role: &viewer, SetPersonID: &f.viewer.PersonID, WritePolicy: &policy}
		f.svc.SeedAccess(f.viewer.PersonID, f.acme, read) // outside any Tx: nothing
		rec := dbtest.Record(t, f.db)
		err := f.svc.Tx(ctx, func(tx *workspace.Service) error {
			tx.SeedAccess(f.viewer.PersonID, f.acme, read)
			role, err := tx.Access(ctx, f.viewer.PersonID, f.acme)
			require.NoError(t, err)
			require.Equal(t, workspace.RoleViewer, role)
			require.ErrorIs(t, tx.CanWrite(ctx, f.viewer.PersonID, f.acme), workspace.ErrForbidden)
			st, err := tx.GetSettings(ctx, f.viewer.PersonID)
			require.NoError(t, err)
			require.Equal(t, workspace.PolicyNeedsMe, st.WritePolicy, "the settings as read with the access")
			return nil
		})
		require.NoError(t, err)
		got := rec.Take()
		require.Zero(t, dbtest.Matching(got, "memberships"), "no access read: %q", got)
		require.Zero(t, dbtest.Matching(got, "settings"), "no settings read: %q", got)

		// Outside a transaction the seed was not kept: the saved settings
		// are read (none saved: immediate).
		st, err := f.svc.GetSettings(ctx, f.viewer.PersonID)
		require.NoError(t, err)
		require.Equal(t, workspace.PolicyImmediate, st.WritePolicy)
	})
}

package workspace_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

func TestRemoveMember(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		// Only an owner removes others; someone who cannot open the space
		// learns nothing of it; an unknown person is not found.
		require.ErrorIs(t, f.svc.RemoveMember(ctx, f.editor.PersonID, f.acme, f.viewer.PersonID), workspace.ErrForbidden)
		require.ErrorIs(t, f.svc.RemoveMember(ctx, f.guest.PersonID, f.acme, f.viewer.PersonID), workspace.ErrForbidden)
		require.ErrorIs(t, f.svc.RemoveMember(ctx, f.outsider.PersonID, f.acme, f.viewer.PersonID), workspace.ErrNotFound)
		require.ErrorIs(t, f.svc.RemoveMember(ctx, f.owner.PersonID, f.acme, "person_nobody"), workspace.ErrNotFound)
		require.ErrorIs(t, f.svc.RemoveMember(ctx, f.owner.PersonID, f.acme, f.outsider.PersonID), workspace.ErrNotFound, "a person of another space")
		_, err := f.svc.Access(ctx, f.viewer.PersonID, f.acme)
		require.NoError(t, err, "nothing refused changed anything")

		require.NoError(t, f.svc.RemoveMember(ctx, f.owner.PersonID, f.acme, f.editor.PersonID))
		_, err = f.svc.Access(ctx, f.editor.PersonID, f.acme)
		require.ErrorIs(t, err, workspace.ErrNotFound, "the removed editor cannot open the space")
		require.ErrorIs(t, f.svc.RemoveMember(ctx, f.owner.PersonID, f.acme, f.editor.PersonID), workspace.ErrNotFound, "removed once")

		// Any member may leave.
		require.NoError(t, f.svc.RemoveMember(ctx, f.viewer.PersonID, f.acme, f.viewer.PersonID))
		_, err = f.svc.Access(ctx, f.viewer.PersonID, f.acme)
		require.ErrorIs(t, err, workspace.ErrNotFound)

		// The last owner cannot leave, until someone else owns the space.
		require.ErrorIs(t, f.svc.RemoveMember(ctx, f.owner.PersonID, f.acme, f.owner.PersonID), workspace.ErrConflict)
		_, err = f.svc.SetMemberRole(ctx, f.owner.PersonID, f.acme, f.guest.PersonID, workspace.RoleOwner)
		require.NoError(t, err)
		require.NoError(t, f.svc.RemoveMember(ctx, f.owner.PersonID, f.acme, f.owner.PersonID))
		require.ErrorIs(t, f.svc.RemoveMember(ctx, f.guest.PersonID, f.acme, f.guest.PersonID), workspace.ErrConflict)
	})
}

func TestSetMemberRole(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		_, err := f.svc.SetMemberRole(ctx, f.owner.PersonID, f.acme, f.viewer.PersonID, "admin")
		var inv *workspace.InvalidError
		require.ErrorAs(t, err, &inv)
		require.Equal(t, "/role", inv.Path)
		_, err = f.svc.SetMemberRole(ctx, f.editor.PersonID, f.acme, f.editor.PersonID, workspace.RoleOwner)
		require.ErrorIs(t, err, workspace.ErrForbidden, "no one promotes themselves")
		_, err = f.svc.SetMemberRole(ctx, f.outsider.PersonID, f.acme, f.viewer.PersonID, workspace.RoleEditor)
		require.ErrorIs(t, err, workspace.ErrNotFound)
		_, err = f.svc.SetMemberRole(ctx, f.owner.PersonID, f.acme, "person_nobody", workspace.RoleEditor)
		require.ErrorIs(t, err, workspace.ErrNotFound)
		_, err = f.svc.SetMemberRole(ctx, f.owner.PersonID, f.acme, f.owner.PersonID, workspace.RoleEditor)
		require.ErrorIs(t, err, workspace.ErrConflict, "the last owner cannot step down")
		role, err := f.svc.Access(ctx, f.owner.PersonID, f.acme)
		require.NoError(t, err)
		require.Equal(t, workspace.RoleOwner, role)

		p, err := f.svc.SetMemberRole(ctx, f.owner.PersonID, f.acme, f.viewer.PersonID, workspace.RoleEditor)
		require.NoError(t, err)
		p.JoinedAt = time.Time{}
		require.Equal(t, workspace.Person{ID: f.viewer.PersonID, Name: "Vera Viewer", Role: workspace.RoleEditor, Revision: 2}, p)
		role, err = f.svc.Access(ctx, f.viewer.PersonID, f.acme)
		require.NoError(t, err)
		require.Equal(t, workspace.RoleEditor, role)
		_, err = f.svc.SetMemberRole(ctx, f.owner.PersonID, f.acme, f.owner.PersonID, workspace.RoleOwner)
		require.NoError(t, err, "keeping the role is no change")
	})
}

// TestTwoOwnersDemotingEachOtherLeaveOne: the space's row lock orders the
// two changes, so the second sees one owner left and is refused: as the
// last owner when both step down at once, as no owner any more when each
// demotes the other.
func TestTwoOwnersDemotingEachOtherLeaveOne(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		_, err := f.svc.SetMemberRole(ctx, f.owner.PersonID, f.acme, f.editor.PersonID, workspace.RoleOwner)
		require.NoError(t, err)
		for round := 0; round < 40; round++ {
			a, b := f.owner.PersonID, f.editor.PersonID
			var wg sync.WaitGroup
			errs := make([]error, 2)
			start := make(chan struct{})
			pairs := [][2]string{{a, b}, {b, a}}
			if round%2 == 0 {
				pairs = [][2]string{{a, a}, {b, b}}
			}
			for i, pair := range pairs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					_, errs[i] = f.svc.SetMemberRole(ctx, pair[0], f.acme, pair[1], workspace.RoleEditor)
				}()
			}
			close(start)
			wg.Wait()
			ok := 0
			for _, err := range errs {
				if err == nil {
					ok++
					continue
				}
				want := workspace.ErrForbidden
				if round%2 == 0 {
					want = workspace.ErrConflict
				}
				require.ErrorIs(t, err, want)
			}
			require.Equal(t, 1, ok, "round %d: %v", round, errs)
			owners := 0
			for _, p := range []string{a, b} {
				if role, err := f.svc.Access(ctx, p, f.acme); err == nil && role == workspace.RoleOwner {
					owners++
				}
			}
			require.Equal(t, 1, owners)
			// Both owners again for the next round.
			winner := a
			if role, _ := f.svc.Access(ctx, a, f.acme); role != workspace.RoleOwner {
				winner = b
			}
			other := a
			if winner == a {
				other = b
			}
			_, err := f.svc.SetMemberRole(ctx, winner, f.acme, other, workspace.RoleOwner)
			require.NoError(t, err)
		}
	})
}

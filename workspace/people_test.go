package workspace_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

// roleOf is the person's role in Acme, "" when they are not in it.
func (f *fixture) roleOf(t *testing.T, personID string) workspace.Role {
	t.Helper()
	p, err := f.svc.GetSpacePerson(t.Context(), f.owner, f.acme, personID)
	if err != nil {
		requireNotFound(t, err, workspace.KindPerson, "")
		return ""
	}
	return p.Role
}

// Undo of the people writes, as the assistant's immediate writes and an
// Apply record them: the membership comes back, or goes, as it was.
func TestPeopleUndo(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		owner := workspace.Actor{PersonID: f.owner.PersonID, Via: workspace.ViaAssistant}
		var ann workspace.Person
		added := f.inGroup(t, owner, "Add person", func(ctx context.Context, tx *workspace.Service) {
			var err error
			ann, err = tx.AddPerson(ctx, owner, f.acme, workspace.NewPerson{Name: "Ann Lee", Role: workspace.RoleViewer})
			require.NoError(t, err)
		})
		require.Equal(t, workspace.RoleViewer, f.roleOf(t, ann.ID))
		res, err := f.svc.Undo(ctx, f.owner.PersonID, added)
		require.NoError(t, err)
		require.Equal(t, []workspace.Ref{{Kind: workspace.KindPerson, ID: ann.ID, Label: "Ann Lee"}}, res.Records)
		require.Empty(t, f.roleOf(t, ann.ID), "Undo takes the added person out")
		_, err = f.svc.Redo(ctx, f.owner.PersonID, added)
		require.NoError(t, err)
		require.Equal(t, workspace.RoleViewer, f.roleOf(t, ann.ID))

		promoted := f.inGroup(t, owner, "Update person", func(ctx context.Context, tx *workspace.Service) {
			role := workspace.RoleEditor
			_, err := tx.UpdatePerson(ctx, owner, f.acme, ann.ID, workspace.PersonPatch{Role: &role})
			require.NoError(t, err)
		})
		removed := f.inGroup(t, owner, "Remove person", func(ctx context.Context, tx *workspace.Service) {
			_, err := tx.RemovePerson(ctx, owner, f.acme, ann.ID)
			require.NoError(t, err)
		})
		require.Empty(t, f.roleOf(t, ann.ID))
		_, err = f.svc.Undo(ctx, f.owner.PersonID, promoted)
		require.ErrorIs(t, err, workspace.ErrConflict, "she was removed since")
		_, err = f.svc.Undo(ctx, f.owner.PersonID, removed)
		require.NoError(t, err)
		require.Equal(t, workspace.RoleEditor, f.roleOf(t, ann.ID), "back with the role she had")
		_, err = f.svc.Undo(ctx, f.owner.PersonID, promoted)
		require.NoError(t, err)
		require.Equal(t, workspace.RoleViewer, f.roleOf(t, ann.ID))
		p, err := f.svc.GetSpacePerson(ctx, f.owner, f.acme, ann.ID)
		require.NoError(t, err)
		require.Greater(t, p.Revision, 3, "every Undo moves the revision on")

		// An owner who is an editor now cannot undo the people changes
		// they made as an owner.
		second, err := f.svc.AddPerson(ctx, f.owner, f.acme, workspace.NewPerson{PersonID: f.editor.PersonID, Role: workspace.RoleOwner})
		require.ErrorIs(t, err, workspace.ErrConflict, "Eddie is in Acme already")
		require.Empty(t, second.ID)
		role := workspace.RoleOwner
		_, err = f.svc.UpdatePerson(ctx, f.owner, f.acme, f.editor.PersonID, workspace.PersonPatch{Role: &role})
		require.NoError(t, err)
		editorGroup := f.inGroup(t, f.editor, "Add person", func(ctx context.Context, tx *workspace.Service) {
			_, err := tx.AddPerson(ctx, f.editor, f.acme, workspace.NewPerson{Name: "Cy Young"})
			require.NoError(t, err)
		})
		role = workspace.RoleEditor
		_, err = f.svc.UpdatePerson(ctx, f.owner, f.acme, f.editor.PersonID, workspace.PersonPatch{Role: &role})
		require.NoError(t, err)
		_, err = f.svc.Undo(ctx, f.editor.PersonID, editorGroup)
		require.ErrorIs(t, err, workspace.ErrConflict)
		require.ErrorContains(t, err, "only an owner")
	})
}

// Seeding a membership again (hub token create) moves its revision on only
// when the role changes.
func TestSeedingTheSameRoleKeepsTheRevision(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		revision := func() int {
			p, err := f.svc.GetSpacePerson(ctx, f.owner, f.acme, f.viewer.PersonID)
			require.NoError(t, err)
			return p.Revision
		}
		require.Equal(t, 1, revision())
		_, _, err := f.svc.EnsureMember(ctx, "Acme", "Vera Viewer", workspace.RoleViewer)
		require.NoError(t, err)
		require.Equal(t, 1, revision(), "the same role: no change")
		_, _, err = f.svc.EnsureMember(ctx, "Acme", "Vera Viewer", workspace.RoleEditor)
		require.NoError(t, err)
		require.Equal(t, 2, revision())
		require.Equal(t, workspace.RoleEditor, f.roleOf(t, f.viewer.PersonID))
	})
}

// Adds of the same person at once take turns (the space row lock): one
// adds them, every other is a conflict, never a database error.
func TestAddingTheSamePersonAtOnceAddsThemOnce(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		// The outsider shares Other with Acme's owner once the owner joins it.
		_, _, err := f.svc.EnsureMember(ctx, "Other", "Olive Owner", workspace.RoleEditor)
		require.NoError(t, err)
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = f.svc.AddPerson(ctx, f.owner, f.acme, workspace.NewPerson{PersonID: f.outsider.PersonID, Role: workspace.RoleGuest})
			})
		}
		wg.Wait()
		added := 0
		for _, err := range errs {
			if err == nil {
				added++
				continue
			}
			require.ErrorIs(t, err, workspace.ErrConflict)
		}
		require.Equal(t, 1, added)
		require.Equal(t, workspace.RoleGuest, f.roleOf(t, f.outsider.PersonID))
	})
}

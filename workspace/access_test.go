package workspace_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/storage"
	"hub/workspace"
)

// TestAWriteChecksAccessInItsTransaction: a person removed, or made a
// viewer, after an activity read their access is refused at the
// activity's write — its transaction reads the membership itself — and a
// role read inside a transaction that rolled back is not what the
// activity's later checks answer.
func TestAWriteChecksAccessInItsTransaction(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		require.NoError(t, f.svc.CanWrite(ctx, f.editor.PersonID, f.acme), "read when the activity started")
		viewer := workspace.RoleViewer
		_, err := f.svc.UpdatePerson(t.Context(), f.owner, f.acme, f.editor.PersonID, workspace.PersonPatch{Role: &viewer})
		require.NoError(t, err)
		write := func(ctx context.Context) error {
			return f.svc.InTx(ctx, func(ctx context.Context) error {
				_, err := f.svc.CreateTasks(ctx, f.editor, f.acme, "/tasks", []workspace.NewTask{{Title: "After the demotion"}})
				return err
			})
		}
		require.ErrorIs(t, write(ctx), workspace.ErrForbidden, "made a viewer meanwhile: refused at the write")
		_, err = f.svc.RemovePerson(t.Context(), f.owner, f.acme, f.editor.PersonID)
		require.NoError(t, err)
		require.ErrorIs(t, write(ctx), workspace.ErrNotFound, "removed meanwhile: refused at the write")

		// Inside a transaction that rolls back, the viewer is an editor;
		// the activity's next check must not believe it.
		later := t.Context()
		require.ErrorIs(t, f.svc.CanWrite(later, f.viewer.PersonID, f.acme), workspace.ErrForbidden)
		undone := errors.New("rolled back")
		editor := workspace.RoleEditor
		err = f.svc.InTx(later, func(later context.Context) error {
			if _, err := f.svc.UpdatePerson(later, f.owner, f.acme, f.viewer.PersonID, workspace.PersonPatch{Role: &editor}); err != nil {
				return err
			}
			if err := f.svc.CanWrite(later, f.viewer.PersonID, f.acme); err != nil {
				return err
			}
			return undone
		})
		require.ErrorIs(t, err, undone)
		err = f.svc.CanWrite(later, f.viewer.PersonID, f.acme)
		require.ErrorIs(t, err, workspace.ErrForbidden, "the rolled-back role is not remembered")
	})
}

// A transaction that changes settings and then rolls back leaves later
// reads answering from the database: neither a read inside the
// transaction nor one made outside it meanwhile (Postgres: the state
// before the change) is the answer afterwards.
func TestTxLeavesReadsToWhatCommitted(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		needsMe := workspace.PolicyNeedsMe
		err := f.svc.InTx(ctx, func(ctx context.Context) error {
			if _, err := f.svc.UpdateSettings(ctx, f.editor.PersonID, workspace.SettingsPatch{WritePolicy: &needsMe}); err != nil {
				return err
			}
			if _, err := f.svc.GetSettings(ctx, f.editor.PersonID); err != nil {
				return err
			}
			return errors.New("roll back")
		})
		require.Error(t, err)
		st, err := f.svc.GetSettings(ctx, f.editor.PersonID)
		require.NoError(t, err)
		require.Equal(t, workspace.PolicyImmediate, st.WritePolicy, "the rolled-back read is not remembered")

		if f.db.Dialect != storage.Postgres {
			return // one connection: nothing reads outside the transaction meanwhile
		}
		require.NoError(t, f.svc.InTx(ctx, func(ctx context.Context) error {
			if _, err := f.svc.UpdateSettings(ctx, f.editor.PersonID, workspace.SettingsPatch{WritePolicy: &needsMe}); err != nil {
				return err
			}
			before, err := f.svc.GetSettings(storage.Detach(ctx), f.editor.PersonID) // another connection: the committed state
			if err != nil {
				return err
			}
			require.Equal(t, workspace.PolicyImmediate, before.WritePolicy)
			return nil
		}))
		st, err = f.svc.GetSettings(ctx, f.editor.PersonID)
		require.NoError(t, err)
		require.Equal(t, workspace.PolicyNeedsMe, st.WritePolicy, "the read made while the change was uncommitted is forgotten at its commit")
	})
}

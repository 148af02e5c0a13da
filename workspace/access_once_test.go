package workspace_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/storage"
	"hub/workspace"
)

// TestCheckAccessOnce: in an activity's context the person's membership
// is read once, however many checks the activity passes through (the
// space, its connections, its tasks, a write's checks); the next activity
// reads again and is refused once the person was removed; a removal made
// in the same context is seen at the next check.
func TestCheckAccessOnce(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		rec := dbtest.Record(t, f.db)
		ctx := workspace.CheckAccessOnce(t.Context())
		_, err := f.svc.GetSpace(ctx, f.editor.PersonID, f.acme)
		require.NoError(t, err)
		require.NoError(t, f.svc.CanWrite(ctx, f.editor.PersonID, f.acme))
		_, err = f.svc.ListConnections(ctx, f.editor, f.acme)
		require.NoError(t, err)
		_, err = f.svc.ListTasks(ctx, f.editor, f.acme, workspace.TaskFilter{})
		require.NoError(t, err)
		got := rec.Take()
		require.Equal(t, 1, dbtest.Matching(got, "FROM memberships"), "one read of the membership")
		require.NoError(t, f.svc.InTx(ctx, func(ctx context.Context) error {
			if err := f.svc.CanWrite(ctx, f.editor.PersonID, f.acme); err != nil {
				return err
			}
			return f.svc.CanWrite(ctx, f.editor.PersonID, f.acme) // the write's Undo group
		}))
		require.Equal(t, 1, dbtest.Matching(rec.Take(), "FROM memberships"), "a write reads it once more, in its transaction")
		require.Zero(t, dbtest.Matching(got, "FROM connections WHERE space_id"), "no connections to list: none read")
		has, known := workspace.SpaceHasMCP(ctx, f.acme)
		require.True(t, known)
		require.False(t, has, "Acme has no MCP server")
		_, known = workspace.SpaceHasMCP(t.Context(), f.acme)
		require.False(t, known, "not known outside an activity's context")

		// The person's settings: read once, and again after the
		// activity changed them itself.
		_, err = f.svc.GetSettings(ctx, f.editor.PersonID)
		require.NoError(t, err)
		st, err := f.svc.GetSettings(ctx, f.editor.PersonID)
		require.NoError(t, err)
		require.Equal(t, workspace.PolicyImmediate, st.WritePolicy)
		require.Equal(t, 1, dbtest.Matching(rec.Take(), "FROM settings"), "one read of the settings")
		policy := workspace.PolicyPreview
		_, err = f.svc.UpdateSettings(ctx, f.editor.PersonID, workspace.SettingsPatch{WritePolicy: &policy})
		require.NoError(t, err)
		st, err = f.svc.GetSettings(ctx, f.editor.PersonID)
		require.NoError(t, err)
		require.Equal(t, workspace.PolicyPreview, st.WritePolicy, "changed in this activity: read again")
		rec.Take()

		// A space the person cannot open is remembered as such.
		_, err = f.svc.GetSpace(ctx, f.editor.PersonID, f.other)
		require.ErrorIs(t, err, workspace.ErrNotFound)
		require.ErrorIs(t, f.svc.CanWrite(ctx, f.editor.PersonID, f.other), workspace.ErrNotFound)
		require.Equal(t, 1, dbtest.Matching(rec.Take(), "FROM memberships"))

		// Removed by someone else while the activity runs: this activity
		// keeps its answer; the next one is refused.
		require.NoError(t, f.svc.CanWrite(ctx, f.editor.PersonID, f.acme))
		_, err = f.svc.RemovePerson(t.Context(), f.owner, f.acme, f.editor.PersonID)
		require.NoError(t, err)
		require.NoError(t, f.svc.CanWrite(ctx, f.editor.PersonID, f.acme))
		next := workspace.CheckAccessOnce(t.Context())
		require.ErrorIs(t, f.svc.CanWrite(next, f.editor.PersonID, f.acme), workspace.ErrNotFound)

		// A change of memberships made in the activity's own context is
		// seen by its next check: the viewer demoted by the owner's own
		// call reads again.
		own := workspace.CheckAccessOnce(t.Context())
		require.NoError(t, f.svc.CanWrite(own, f.owner.PersonID, f.acme))
		_, err = f.svc.GetSpace(own, f.viewer.PersonID, f.acme)
		require.NoError(t, err)
		role := workspace.RoleViewer
		_, err = f.svc.UpdatePerson(own, f.owner, f.acme, f.viewer.PersonID, workspace.PersonPatch{Role: &role})
		require.NoError(t, err)
		_, err = f.svc.RemovePerson(own, f.owner, f.acme, f.viewer.PersonID)
		require.NoError(t, err)
		_, err = f.svc.GetSpace(own, f.viewer.PersonID, f.acme)
		require.ErrorIs(t, err, workspace.ErrNotFound, "the removal made in this context is seen")

		// A space with an MCP connection says so.
		require.NoError(t, f.db.Create(&storage.Connection{ID: "conn_1", SpaceID: f.acme, OwnerID: f.owner.PersonID, Kind: workspace.ConnectionMCP,
			Name: "Tracker", URL: "http://tracker.example", Enabled: true}).Error)
		later := workspace.CheckAccessOnce(t.Context())
		require.NoError(t, f.svc.CanWrite(later, f.owner.PersonID, f.acme))
		has, known = workspace.SpaceHasMCP(later, f.acme)
		require.True(t, known && has)
		conns, err := f.svc.ListConnections(later, f.owner, f.acme)
		require.NoError(t, err)
		require.Len(t, conns, 1, "a space with a connection lists it")
	})
}

// TestAWriteChecksAccessInItsTransaction: a person removed, or made a
// viewer, after an activity read their access is refused at the
// activity's write — its transaction reads the membership itself — and a
// role read inside a transaction that rolled back is not what the
// activity's later checks answer.
func TestAWriteChecksAccessInItsTransaction(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := workspace.CheckAccessOnce(t.Context())
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
		later := workspace.CheckAccessOnce(t.Context())
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

// A transaction that changes what the memo holds and then rolls back
// leaves the activity's memo answering from the database: neither a read
// inside the transaction nor one made outside it meanwhile (Postgres: the
// state before the change) is the memo's answer afterwards.
func TestTxLeavesTheMemoToWhatCommitted(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := workspace.CheckAccessOnce(t.Context())
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

// TestStartColumnsAnswerGetSpaceAndGetPerson: what a turn's start reads
// with its access (StartColumns) answers GetSpace and GetPerson in the
// activity, with no read of their own; outside it, and for another space
// or person, they read as before.
func TestStartColumnsAnswerGetSpaceAndGetPerson(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := workspace.CheckAccessOnce(t.Context())
		var row struct {
			Access workspace.ActivityRead `gorm:"embedded"`
			Start  workspace.StartRead    `gorm:"embedded"`
		}
		person, space := "'"+f.editor.PersonID+"'", "'"+f.acme+"'"
		require.NoError(t, f.db.Raw(`SELECT `+workspace.AccessColumns(person, space)+`, `+workspace.StartColumns(person, space)).Scan(&row).Error)
		workspace.RememberAccess(ctx, f.editor.PersonID, f.acme, row.Access)
		workspace.RememberStart(ctx, f.editor.PersonID, f.acme, row.Start)

		rec := dbtest.Record(t, f.db)
		sp, err := f.svc.GetSpace(ctx, f.editor.PersonID, f.acme)
		require.NoError(t, err)
		p, err := f.svc.GetPerson(ctx, f.editor.PersonID)
		require.NoError(t, err)
		require.Empty(t, rec.Take(), "answered from the start's read")

		want, err := f.svc.GetSpace(t.Context(), f.editor.PersonID, f.acme)
		require.NoError(t, err)
		require.Equal(t, want, sp)
		wantP, err := f.svc.GetPerson(t.Context(), f.editor.PersonID)
		require.NoError(t, err)
		require.Equal(t, wantP, p)
		require.NotEmpty(t, rec.Take(), "outside the activity they read")

		_, err = f.svc.GetPerson(ctx, f.owner.PersonID)
		require.NoError(t, err)
		require.Equal(t, 1, dbtest.Matching(rec.Take(), "FROM people"), "another person is read")
	})
}

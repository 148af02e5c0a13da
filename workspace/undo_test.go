package workspace_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/storage"
	"hub/workspace"
)

// inGroup runs fn with a Service whose writes record in a new Undo group of
// the actor in Acme, in one transaction, as the assistant's writes do.
func (f *fixture) inGroup(t *testing.T, actor workspace.Actor, label string, fn func(ctx context.Context, w *workspace.Service)) string {
	t.Helper()
	ctx := t.Context()
	var id string
	require.NoError(t, f.svc.InTx(ctx, func(ctx context.Context) error {
		var err error
		id, err = f.svc.NewUndoGroup(ctx, actor, f.acme, label)
		require.NoError(t, err)
		fn(ctx, f.svc.WithUndo(id))
		return nil
	}))
	return id
}

// state is what a person sees of Acme: every task and project by id.
type state struct {
	tasks    map[string]workspace.Task
	projects map[string]workspace.Project
}

func (f *fixture) state(t *testing.T) state {
	t.Helper()
	page, err := f.svc.ListTasks(t.Context(), f.owner, f.acme, workspace.TaskFilter{Limit: workspace.MaxListLimit})
	require.NoError(t, err)
	ps, err := f.svc.ListProjects(t.Context(), f.owner, f.acme, workspace.ProjectFilter{Limit: workspace.MaxListLimit})
	require.NoError(t, err)
	s := state{tasks: map[string]workspace.Task{}, projects: map[string]workspace.Project{}}
	for _, tk := range page.Tasks {
		s.tasks[tk.ID] = tk
	}
	for _, p := range ps.Projects {
		s.projects[p.ID] = p
	}
	return s
}

// requireSameContent compares two states ignoring revisions and times,
// which Undo and Redo move on.
func requireSameContent(t *testing.T, want, got state) {
	t.Helper()
	strip := func(s state) state {
		out := state{tasks: map[string]workspace.Task{}, projects: map[string]workspace.Project{}}
		for id, tk := range s.tasks {
			tk.Revision, tk.UpdatedAt, tk.CreatedAt = 0, time.Time{}, time.Time{}
			out.tasks[id] = tk
		}
		for id, p := range s.projects {
			p.Revision, p.UpdatedAt, p.CreatedAt = 0, time.Time{}, time.Time{}
			out.projects[id] = p
		}
		return out
	}
	require.Equal(t, strip(want), strip(got))
}

func countEntries(t *testing.T, f *fixture) int64 {
	t.Helper()
	var n int64
	require.NoError(t, f.db.Model(&storage.UndoEntry{}).Count(&n).Error)
	return n
}

func TestUndoRedoRoundTripOfTasksAndProjects(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		// What stands before the group: a task it renames, one it deletes,
		// a project it renames and one it deletes with a task in it.
		renamed := f.task(t, workspace.NewTask{Title: "Draft brief", DueDate: "2026-03-31"})
		doomed := f.task(t, workspace.NewTask{Title: "Old chore", Priority: "high", AssigneeID: f.editor.PersonID})
		site := f.project(t, f.owner, f.acme, "Website")
		oldProject := f.project(t, f.owner, f.acme, "Archive")
		filed := f.task(t, workspace.NewTask{Title: "Filed away", ProjectID: oldProject.ID})
		before := f.state(t)

		var launch workspace.Project
		var made []workspace.Task
		group := f.inGroup(t, f.editor, "Plan the launch", func(ctx context.Context, tx *workspace.Service) {
			var err error
			launch, err = tx.CreateProject(ctx, f.editor, f.acme, workspace.NewProject{Name: "Launch"})
			require.NoError(t, err)
			made, err = tx.CreateTasks(ctx, f.editor, f.acme, "/tasks", []workspace.NewTask{
				{Title: "Write copy", ProjectID: launch.ID}, {Title: "Book venue"}})
			require.NoError(t, err)
			_, err = tx.UpdateTask(ctx, f.editor, f.acme, renamed.ID, workspace.TaskPatch{Title: ptr("Final brief"), DueDate: ptr(""), ProjectID: &launch.ID})
			require.NoError(t, err)
			_, err = tx.DeleteTask(ctx, f.editor, f.acme, doomed.ID)
			require.NoError(t, err)
			_, err = tx.UpdateProject(ctx, f.editor, f.acme, site.ID, workspace.ProjectPatch{Status: ptr("paused"), Description: ptr("later")})
			require.NoError(t, err)
			_, err = tx.DeleteProject(ctx, f.editor, f.acme, oldProject.ID)
			require.NoError(t, err)
		})
		after := f.state(t)
		require.Contains(t, after.projects, launch.ID)
		require.NotContains(t, after.tasks, doomed.ID)
		require.NotContains(t, after.projects, oldProject.ID)
		require.Empty(t, after.tasks[filed.ID].ProjectID, "deleting a project takes its tasks out of it")
		require.Equal(t, 2, after.tasks[filed.ID].Revision, "and that is a change to the task")

		require.Equal(t, workspace.UndoDone, f.undoState(t, f.editor.PersonID, group))
		var row storage.UndoGroup
		require.NoError(t, f.db.Where("id = ?", group).Take(&row).Error)
		require.Equal(t, "Plan the launch", row.Label)
		require.Equal(t, workspace.ViaREST, row.Via)

		res, err := f.svc.Undo(ctx, f.editor.PersonID, group)
		require.NoError(t, err)
		require.Equal(t, group, res.GroupID)
		require.Equal(t, workspace.UndoUndone, res.State)
		require.Equal(t, []workspace.Ref{
			{Kind: "project", ID: launch.ID, Label: "Launch"},
			{Kind: "task", ID: made[0].ID, Label: "Write copy"},
			{Kind: "task", ID: made[1].ID, Label: "Book venue"},
			{Kind: "task", ID: renamed.ID, Label: "Draft brief"},
			{Kind: "task", ID: doomed.ID, Label: "Old chore"},
			{Kind: "project", ID: site.ID, Label: "Website"},
			{Kind: "task", ID: filed.ID, Label: "Filed away"},
			{Kind: "project", ID: oldProject.ID, Label: "Archive"},
		}, res.Records)
		undone := f.state(t)
		requireSameContent(t, before, undone)
		require.Equal(t, oldProject.ID, undone.tasks[filed.ID].ProjectID, "back in its project")
		require.Equal(t, 3, undone.tasks[renamed.ID].Revision, "a restored record gets a new revision")
		require.Equal(t, 2, undone.tasks[doomed.ID].Revision, "a deleted one comes back after its last revision")
		require.Equal(t, 3, undone.projects[site.ID].Revision)

		// A screen still holding the task from before the Undo is stale.
		_, err = f.svc.UpdateTask(ctx, f.owner, f.acme, renamed.ID, workspace.TaskPatch{Status: ptr("done"), Revision: ptr(2)})
		require.ErrorIs(t, err, workspace.ErrStale)

		res, err = f.svc.Redo(ctx, f.editor.PersonID, group)
		require.NoError(t, err)
		require.Equal(t, workspace.UndoRedone, res.State)
		redone := f.state(t)
		requireSameContent(t, after, redone)
		require.Equal(t, 4, redone.tasks[renamed.ID].Revision)

		// Undo again after a Redo, and the same records come back once more.
		res, err = f.svc.Undo(ctx, f.editor.PersonID, group)
		require.NoError(t, err)
		require.Equal(t, workspace.UndoUndone, res.State)
		requireSameContent(t, before, f.state(t))
		require.Equal(t, workspace.UndoUndone, f.undoState(t, f.editor.PersonID, group))
	})
}

// undoState is the group's state as the person's UndoStates read it ("": left out).
func (f *fixture) undoState(t *testing.T, personID, group string) string {
	t.Helper()
	states, err := f.svc.UndoStates(t.Context(), personID, []string{group})
	require.NoError(t, err)
	return states[group]
}

func TestUndoIsRefusedWhenARecordChangedSince(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		milk := f.task(t, workspace.NewTask{Title: "Buy milk"})
		group := f.inGroup(t, f.owner, "Finish the errands", func(ctx context.Context, tx *workspace.Service) {
			_, err := tx.UpdateTask(ctx, f.owner, f.acme, milk.ID, workspace.TaskPatch{Status: ptr("done")})
			require.NoError(t, err)
		})

		// Someone renames it afterwards: Undo would overwrite their work.
		_, err := f.svc.UpdateTask(ctx, f.editor, f.acme, milk.ID, workspace.TaskPatch{Title: ptr("Buy oat milk")})
		require.NoError(t, err)
		_, err = f.svc.Undo(ctx, f.owner.PersonID, group)
		require.ErrorIs(t, err, workspace.ErrConflict)
		require.Contains(t, err.Error(), `task "Buy oat milk" was changed`)
		require.Contains(t, err.Error(), `"Finish the errands"`)
		got, err := f.svc.GetTask(ctx, f.owner, f.acme, milk.ID)
		require.NoError(t, err)
		require.Equal(t, "done", got.Status, "nothing was undone")
		require.Equal(t, workspace.UndoDone, f.undoState(t, f.owner.PersonID, group),
			"the refused Undo left the group as it was")

		// Renamed back, the task is as the group left it: Undo goes ahead.
		_, err = f.svc.UpdateTask(ctx, f.editor, f.acme, milk.ID, workspace.TaskPatch{Title: ptr("Buy milk")})
		require.NoError(t, err)
		res, err := f.svc.Undo(ctx, f.owner.PersonID, group)
		require.NoError(t, err)
		require.Equal(t, []workspace.Ref{{Kind: "task", ID: milk.ID, Label: "Buy milk"}}, res.Records)
		got, err = f.svc.GetTask(ctx, f.owner, f.acme, milk.ID)
		require.NoError(t, err)
		require.Equal(t, "todo", got.Status)

		_, err = f.svc.Undo(ctx, f.owner.PersonID, group)
		require.ErrorIs(t, err, workspace.ErrConflict, "undone already")
		require.Contains(t, err.Error(), "undone already")

		// Redo checks against the undone state the same way.
		_, err = f.svc.UpdateTask(ctx, f.editor, f.acme, milk.ID, workspace.TaskPatch{Priority: ptr("high")})
		require.NoError(t, err)
		_, err = f.svc.Redo(ctx, f.owner.PersonID, group)
		require.ErrorIs(t, err, workspace.ErrConflict)
		require.Contains(t, err.Error(), `task "Buy milk" was changed`)
		_, err = f.svc.UpdateTask(ctx, f.editor, f.acme, milk.ID, workspace.TaskPatch{Priority: ptr("none")})
		require.NoError(t, err)
		_, err = f.svc.Redo(ctx, f.owner.PersonID, group)
		require.NoError(t, err)
		_, err = f.svc.Redo(ctx, f.owner.PersonID, group)
		require.ErrorIs(t, err, workspace.ErrConflict, "a redone group is not undone")
		require.Contains(t, err.Error(), "not undone")

		// Deleted since: Undo names the record it cannot bring back.
		_, err = f.svc.DeleteTask(ctx, f.editor, f.acme, milk.ID)
		require.NoError(t, err)
		_, err = f.svc.Undo(ctx, f.owner.PersonID, group)
		require.ErrorIs(t, err, workspace.ErrConflict)
		require.Contains(t, err.Error(), `task "Buy milk" was deleted`)
	})
}

func TestUndoOfACreatedProjectLeavesOtherTasksAlone(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		var launch workspace.Project
		group := f.inGroup(t, f.owner, "New project", func(ctx context.Context, tx *workspace.Service) {
			var err error
			launch, err = tx.CreateProject(ctx, f.owner, f.acme, workspace.NewProject{Name: "Launch"})
			require.NoError(t, err)
		})
		// A task joined the project afterwards: deleting the project would
		// quietly change that task, which is not the group's.
		late := f.task(t, workspace.NewTask{Title: "Late addition", ProjectID: launch.ID})
		_, err := f.svc.Undo(ctx, f.owner.PersonID, group)
		require.ErrorIs(t, err, workspace.ErrConflict)
		require.Contains(t, err.Error(), `task "Late addition" was added to project "Launch"`)
		got, err := f.svc.GetTask(ctx, f.owner, f.acme, late.ID)
		require.NoError(t, err)
		require.Equal(t, launch.ID, got.ProjectID)

		_, err = f.svc.DeleteTask(ctx, f.owner, f.acme, late.ID)
		require.NoError(t, err)
		_, err = f.svc.Undo(ctx, f.owner.PersonID, group)
		require.NoError(t, err)
		_, err = f.svc.GetProject(ctx, f.owner, f.acme, launch.ID)
		requireNotFound(t, err, "project", "")
	})
}

func TestUndoBringsBackNothingThatPointsAtADeletedProject(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		p := f.project(t, f.owner, f.acme, "Launch")
		tk := f.task(t, workspace.NewTask{Title: "Write copy", ProjectID: p.ID})
		group := f.inGroup(t, f.owner, "Delete a task", func(ctx context.Context, tx *workspace.Service) {
			_, err := tx.DeleteTask(ctx, f.owner, f.acme, tk.ID)
			require.NoError(t, err)
		})
		_, err := f.svc.DeleteProject(ctx, f.owner, f.acme, p.ID)
		require.NoError(t, err)
		_, err = f.svc.Undo(ctx, f.owner.PersonID, group)
		require.ErrorIs(t, err, workspace.ErrConflict)
		require.Contains(t, err.Error(), `the project of task "Write copy" was deleted`)
	})
}

func TestOnlyTheMakerOfAGroupMayUndoIt(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		group := f.inGroup(t, f.editor, "Add a task", func(ctx context.Context, tx *workspace.Service) {
			_, err := tx.CreateTasks(ctx, f.editor, f.acme, "/tasks", []workspace.NewTask{{Title: "Mine"}})
			require.NoError(t, err)
		})
		for _, who := range []workspace.Actor{f.owner, f.guest, f.outsider} {
			_, err := f.svc.Undo(ctx, who.PersonID, group)
			requireNotFound(t, err, "undo group", "")
			require.Empty(t, f.undoState(t, who.PersonID, group), "their Undo states leave it out")
		}
		_, err := f.svc.Undo(ctx, f.editor.PersonID, "undo_nosuchgroup")
		requireNotFound(t, err, "undo group", "")
		_, err = f.svc.Redo(ctx, f.editor.PersonID, group)
		require.ErrorIs(t, err, workspace.ErrConflict, "a group that is not undone cannot be redone")

		// Made a viewer, the editor may no longer change the space.
		_, _, err = f.svc.EnsureMember(ctx, "Acme", "Eddie Editor", workspace.RoleViewer)
		require.NoError(t, err)
		_, err = f.svc.Undo(ctx, f.editor.PersonID, group)
		require.ErrorIs(t, err, workspace.ErrForbidden)
		page, err := f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{})
		require.NoError(t, err)
		require.Len(t, page.Tasks, 1, "still there")
	})
}

func TestUndoStatesReadsThePersonsGroupsAtOnce(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		add := func(title string) string {
			return f.inGroup(t, f.editor, "Add "+title, func(ctx context.Context, tx *workspace.Service) {
				_, err := tx.CreateTasks(ctx, f.editor, f.acme, "/tasks", []workspace.NewTask{{Title: title}})
				require.NoError(t, err)
			})
		}
		done, undone, redone := add("One"), add("Two"), add("Three")
		_, err := f.svc.Undo(ctx, f.editor.PersonID, undone)
		require.NoError(t, err)
		_, err = f.svc.Undo(ctx, f.editor.PersonID, redone)
		require.NoError(t, err)
		_, err = f.svc.Redo(ctx, f.editor.PersonID, redone)
		require.NoError(t, err)

		states, err := f.svc.UndoStates(ctx, f.editor.PersonID, []string{done, undone, redone, "undo_nosuchgroup"})
		require.NoError(t, err)
		require.Equal(t, map[string]string{done: workspace.UndoDone, undone: workspace.UndoUndone, redone: workspace.UndoRedone}, states)
		states, err = f.svc.UndoStates(ctx, f.owner.PersonID, []string{done, undone})
		require.NoError(t, err)
		require.Empty(t, states, "another person's groups are left out")
	})
}

func TestWritesRecordEntriesOnlyInAGroup(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		tk := f.task(t, workspace.NewTask{Title: "Plain"})
		_, err := f.svc.UpdateTask(ctx, f.owner, f.acme, tk.ID, workspace.TaskPatch{Status: ptr("done")})
		require.NoError(t, err)
		_, err = f.svc.DeleteTask(ctx, f.owner, f.acme, tk.ID)
		require.NoError(t, err)
		require.Zero(t, countEntries(t, f), "a person's own writes record nothing")

		// A group of Acme takes no writes in Other; the write rolls back.
		group, err := f.svc.NewUndoGroup(ctx, f.outsider, f.other, "Theirs")
		require.NoError(t, err)
		_, err = f.svc.WithUndo(group).CreateProject(ctx, f.owner, f.acme, workspace.NewProject{Name: "Stray"})
		require.ErrorIs(t, err, workspace.ErrConflict)
		ps, err := f.svc.ListProjects(ctx, f.owner, f.acme, workspace.ProjectFilter{})
		require.NoError(t, err)
		require.Empty(t, ps.Projects, "the write rolled back with its entry")

		// Without a transaction of its own, a write and its entry still
		// commit together.
		group, err = f.svc.NewUndoGroup(ctx, f.owner, f.acme, "One task")
		require.NoError(t, err)
		_, err = f.svc.WithUndo(group).CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "A"}, {Title: "B"}})
		require.NoError(t, err)
		require.EqualValues(t, 2, countEntries(t, f))
		_, err = f.svc.Undo(ctx, f.owner.PersonID, group)
		require.NoError(t, err)
		_, err = f.svc.WithUndo(group).CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "C"}})
		require.ErrorIs(t, err, workspace.ErrConflict, "an undone group takes no more writes")

		// A viewer cannot open a group, and a rolled-back one leaves nothing.
		_, err = f.svc.NewUndoGroup(ctx, f.viewer, f.acme, "x")
		require.ErrorIs(t, err, workspace.ErrForbidden)
		var rolledBack string
		boom := errors.New("boom")
		err = f.svc.InTx(ctx, func(ctx context.Context) error {
			var err error
			rolledBack, err = f.svc.NewUndoGroup(ctx, f.owner, f.acme, "Gone")
			require.NoError(t, err)
			_, err = f.svc.WithUndo(rolledBack).CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "Gone"}})
			require.NoError(t, err)
			return boom
		})
		require.ErrorIs(t, err, boom)
		_, err = f.svc.Undo(ctx, f.owner.PersonID, rolledBack)
		requireNotFound(t, err, "undo group", "")
		require.EqualValues(t, 2, countEntries(t, f))
	})
}

func TestOneRecordChangedTwiceInAGroup(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		var tk workspace.Task
		group := f.inGroup(t, f.owner, "Make and change", func(ctx context.Context, tx *workspace.Service) {
			made, err := tx.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "Draft"}})
			require.NoError(t, err)
			_, err = tx.UpdateTask(ctx, f.owner, f.acme, made[0].ID, workspace.TaskPatch{Title: ptr("Second draft")})
			require.NoError(t, err)
			tk, err = tx.UpdateTask(ctx, f.owner, f.acme, made[0].ID, workspace.TaskPatch{Status: ptr("done")})
			require.NoError(t, err)
		})
		res, err := f.svc.Undo(ctx, f.owner.PersonID, group)
		require.NoError(t, err)
		require.Equal(t, []workspace.Ref{{Kind: "task", ID: tk.ID, Label: "Second draft"}}, res.Records)
		_, err = f.svc.GetTask(ctx, f.owner, f.acme, tk.ID)
		requireNotFound(t, err, "task", "")

		_, err = f.svc.Redo(ctx, f.owner.PersonID, group)
		require.NoError(t, err)
		got, err := f.svc.GetTask(ctx, f.owner, f.acme, tk.ID)
		require.NoError(t, err)
		require.Equal(t, "Second draft", got.Title)
		require.Equal(t, "done", got.Status)
		require.Greater(t, got.Revision, 3, "past every revision the group saw")
	})
}

// TestUndoTwiceAtOnce races two Undos of one group: exactly one wins.
func TestUndoTwiceAtOnce(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		tk := f.task(t, workspace.NewTask{Title: "Once"})
		group := f.inGroup(t, f.owner, "Finish", func(ctx context.Context, tx *workspace.Service) {
			_, err := tx.UpdateTask(ctx, f.owner, f.acme, tk.ID, workspace.TaskPatch{Status: ptr("done")})
			require.NoError(t, err)
		})
		errs := make(chan error, 2)
		for range 2 {
			go func() {
				_, err := f.svc.Undo(context.WithoutCancel(ctx), f.owner.PersonID, group)
				errs <- err
			}()
		}
		var ok, conflicts int
		for range 2 {
			err := <-errs
			switch {
			case err == nil:
				ok++
			case errors.Is(err, workspace.ErrConflict), errors.Is(err, workspace.ErrStale):
				conflicts++
			default:
				t.Fatalf("unexpected error: %v", err)
			}
		}
		require.Equal(t, 1, ok)
		require.Equal(t, 1, conflicts)
		got, err := f.svc.GetTask(ctx, f.owner, f.acme, tk.ID)
		require.NoError(t, err)
		require.Equal(t, 3, got.Revision, "undone once")
	})
}

package workspace_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

// A typed mention's name is found by exact name (ignoring case) at the
// start of the text after "@kind:", ending where a word ends; the longest
// name wins; two records of that name are ambiguous; other spaces' records
// are not found.
func TestResolveNameByExactName(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		brief := f.task(t, workspace.NewTask{Title: "Draft brief"})
		v2 := f.task(t, workspace.NewTask{Title: "Draft brief v2"})
		f.task(t, workspace.NewTask{Title: "Call Ken"})
		f.task(t, workspace.NewTask{Title: "Call Ken"})
		_, err := f.svc.CreateTasks(ctx, f.outsider, f.other, "/tasks", []workspace.NewTask{{Title: "Secret plan"}})
		require.NoError(t, err)

		ref, err := f.svc.ResolveName(ctx, f.editor, f.acme, workspace.KindTask, "draft BRIEF, is it done?")
		require.NoError(t, err)
		require.Equal(t, brief.ID, ref.ID)
		ref, err = f.svc.ResolveName(ctx, f.editor, f.acme, workspace.KindTask, "Draft brief v2 please")
		require.NoError(t, err)
		require.Equal(t, v2.ID, ref.ID, "the longest name wins")

		_, err = f.svc.ResolveName(ctx, f.editor, f.acme, workspace.KindTask, "Draft briefing notes")
		var nf *workspace.NotFoundError
		require.ErrorAs(t, err, &nf, "a name must end where a word ends")

		_, err = f.svc.ResolveName(ctx, f.editor, f.acme, workspace.KindTask, "Call Ken today")
		var amb *workspace.AmbiguousError
		require.ErrorAs(t, err, &amb)
		require.Equal(t, 2, amb.Count)
		require.Equal(t, "Call Ken", amb.Name)

		_, err = f.svc.ResolveName(ctx, f.editor, f.acme, workspace.KindTask, "Secret plan")
		require.ErrorAs(t, err, &nf, "a task of another space is not found")

		ref, err = f.svc.ResolveName(ctx, f.editor, f.acme, workspace.KindPerson, "Vera Viewer can you")
		require.NoError(t, err)
		require.Equal(t, f.viewer.PersonID, ref.ID)
		_, err = f.svc.ResolveName(ctx, f.editor, f.acme, workspace.KindPerson, "Otto Outsider")
		require.ErrorAs(t, err, &nf, "a person who is no member is not found")

		_, err = f.svc.ResolveName(ctx, f.outsider, f.acme, workspace.KindTask, "Draft brief")
		require.True(t, errors.Is(err, workspace.ErrNotFound) || errors.As(err, &nf), "no access: not found, %v", err)
	})
}

// FindRefs resolves ids of any kind in the space; ids of other spaces and
// of nothing are left out.
func TestFindRefsOnlyInTheSpace(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		task := f.task(t, workspace.NewTask{Title: "Draft brief", DueDate: "2026-03-06"})
		project := f.project(t, f.owner, f.acme, "Launch")
		theirs, err := f.svc.CreateTasks(ctx, f.outsider, f.other, "/tasks", []workspace.NewTask{{Title: "Secret plan"}})
		require.NoError(t, err)
		got, err := f.svc.FindRefs(ctx, f.editor, f.acme, []string{task.ID, project.ID, f.viewer.PersonID, theirs[0].ID, "task_nothing", f.outsider.PersonID})
		require.NoError(t, err)
		require.Len(t, got, 3)
		require.Equal(t, "Draft brief", got[task.ID].Label)
		require.Equal(t, "todo, due 2026-03-06", got[task.ID].Detail)
		require.Equal(t, workspace.KindProject, got[project.ID].Kind)
		require.Equal(t, "Vera Viewer", got[f.viewer.PersonID].Label)
	})
}

// The change log keeps every committed change (REST and assistant alike),
// and ChangedByOthers reads the records someone other than the reader
// changed in a window, newest first, leaving out the reader's own changes
// and spaces they cannot open.
func TestChangedByOthersReadsTheChangeLog(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		start := time.Now().Add(-time.Second)
		mine := f.task(t, workspace.NewTask{Title: "Mine"}) // the owner's own create
		theirs := f.task(t, workspace.NewTask{Title: "Draft brief"})
		title := "Draft brief (final)"
		_, err := f.svc.UpdateTask(ctx, f.editor, f.acme, theirs.ID, workspace.TaskPatch{Title: &title})
		require.NoError(t, err)
		gone := f.task(t, workspace.NewTask{Title: "Old note"})
		_, err = f.svc.DeleteTask(ctx, f.guest, f.acme, gone.ID)
		require.NoError(t, err)
		untouched := f.task(t, workspace.NewTask{Title: "Untouched"})
		other, err := f.svc.CreateTasks(ctx, f.outsider, f.other, "/tasks", []workspace.NewTask{{Title: "Secret plan"}})
		require.NoError(t, err)

		ids := []string{mine.ID, theirs.ID, gone.ID, untouched.ID, other[0].ID}
		got, err := f.svc.ChangedByOthers(ctx, f.owner.PersonID, []string{f.acme, f.other}, ids, start, time.Now().Add(time.Second))
		require.NoError(t, err)
		require.Len(t, got, 2, "%+v", got)
		require.Equal(t, gone.ID, got[0].ID, "newest first")
		require.Equal(t, workspace.OpDeleted, got[0].Op)
		require.Equal(t, []string{"Gus Guest"}, got[0].By)
		require.Equal(t, theirs.ID, got[1].ID)
		require.Equal(t, "Draft brief (final)", got[1].Title)
		require.Equal(t, []string{"Eddie Editor"}, got[1].By)

		// The window's start excludes what came before.
		got, err = f.svc.ChangedByOthers(ctx, f.owner.PersonID, []string{f.acme}, ids, time.Now().Add(time.Second), time.Now().Add(2*time.Second))
		require.NoError(t, err)
		require.Empty(t, got)

		// Sweeping removes old changes.
		n, err := f.svc.DeleteChangesBefore(ctx, time.Now().Add(time.Minute))
		require.NoError(t, err)
		require.GreaterOrEqual(t, n, int64(6))
	})
}

package workspace_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

// listCase is one list call and what it must answer: the titles (or names)
// of the page in order, the total and NextOffset.
type listCase struct {
	name  string
	want  []string
	total int64
	next  int
}

// TestTaskPages: a page of tasks, its total and NextOffset, for every shape
// of page, filter and search (a page that is not full ends the list).
func TestTaskPages(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		plan := f.project(t, f.owner, f.acme, "Plan")
		in := []workspace.NewTask{
			{Title: "Write the plan"},
			{Title: "Review the plan", Status: workspace.TaskDoing, ProjectID: plan.ID},
			{Title: "Ship 50% discount", AssigneeID: f.editor.PersonID},
			{Title: "Call the Öl supplier", Status: workspace.TaskDone},
			{Title: "Plan the party", ProjectID: plan.ID},
			{Title: "Book the room"},
			{Title: "Send invites", Status: workspace.TaskDoing, AssigneeID: f.editor.PersonID},
		}
		_, err := f.svc.CreateTasks(t.Context(), f.owner, f.acme, "/tasks", in)
		require.NoError(t, err)
		_, err = f.svc.Access(ctx, f.viewer.PersonID, f.acme)
		require.NoError(t, err)
		_, err = f.svc.Access(ctx, f.outsider.PersonID, f.other)
		require.NoError(t, err)

		for _, tc := range []struct {
			listCase
			actor   workspace.Actor
			spaceID string
			filter  workspace.TaskFilter
		}{
			{listCase{"first page", []string{"Write the plan", "Review the plan", "Ship 50% discount"}, 7, 3},
				f.viewer, f.acme, workspace.TaskFilter{Limit: 3}},
			{listCase{"middle page", []string{"Call the Öl supplier", "Plan the party", "Book the room"}, 7, 6},
				f.viewer, f.acme, workspace.TaskFilter{Limit: 3, Offset: 3}},
			{listCase{"last page", []string{"Send invites"}, 7, 0},
				f.viewer, f.acme, workspace.TaskFilter{Limit: 3, Offset: 6}},
			{listCase{"exactly the last row", []string{"Book the room", "Send invites"}, 7, 0},
				f.viewer, f.acme, workspace.TaskFilter{Limit: 2, Offset: 5}},
			{listCase{"offset at the end", nil, 7, 0},
				f.viewer, f.acme, workspace.TaskFilter{Limit: 3, Offset: 7}},
			{listCase{"offset past the end", nil, 7, 0},
				f.viewer, f.acme, workspace.TaskFilter{Offset: 100}},
			{listCase{"default page", []string{"Write the plan", "Review the plan", "Ship 50% discount", "Call the Öl supplier",
				"Plan the party", "Book the room", "Send invites"}, 7, 0},
				f.viewer, f.acme, workspace.TaskFilter{}},
			{listCase{"empty space", nil, 0, 0},
				f.outsider, f.other, workspace.TaskFilter{}},
			{listCase{"empty space past 0", nil, 0, 0},
				f.outsider, f.other, workspace.TaskFilter{Offset: 10}},
			{listCase{"status", []string{"Write the plan", "Ship 50% discount"}, 4, 2},
				f.viewer, f.acme, workspace.TaskFilter{Status: workspace.TaskTodo, Limit: 2}},
			{listCase{"status, next page", []string{"Plan the party", "Book the room"}, 4, 0},
				f.viewer, f.acme, workspace.TaskFilter{Status: workspace.TaskTodo, Limit: 2, Offset: 2}},
			{listCase{"project", []string{"Review the plan", "Plan the party"}, 2, 0},
				f.viewer, f.acme, workspace.TaskFilter{ProjectID: plan.ID}},
			{listCase{"assignee", []string{"Ship 50% discount"}, 2, 1},
				f.viewer, f.acme, workspace.TaskFilter{AssigneeID: f.editor.PersonID, Limit: 1}},
			{listCase{"status and assignee", []string{"Send invites"}, 1, 0},
				f.viewer, f.acme, workspace.TaskFilter{Status: workspace.TaskDoing, AssigneeID: f.editor.PersonID}},
			{listCase{"search", []string{"Write the plan", "Review the plan", "Plan the party"}, 3, 0},
				f.viewer, f.acme, workspace.TaskFilter{Query: "PLAN"}},
			{listCase{"search, two words", []string{"Plan the party"}, 1, 0},
				f.viewer, f.acme, workspace.TaskFilter{Query: "party plan"}},
			{listCase{"search, not ASCII", []string{"Call the Öl supplier"}, 1, 0},
				f.viewer, f.acme, workspace.TaskFilter{Query: "öl"}},
			{listCase{"search, escaped", []string{"Ship 50% discount"}, 1, 0},
				f.viewer, f.acme, workspace.TaskFilter{Query: "%"}},
			{listCase{"search without a match", nil, 0, 0},
				f.viewer, f.acme, workspace.TaskFilter{Query: "plan_"}},
			{listCase{"search and status, past the end", nil, 2, 0},
				f.viewer, f.acme, workspace.TaskFilter{Query: "plan", Status: workspace.TaskTodo, Offset: 2}},
		} {
			page, err := f.svc.ListTasks(ctx, tc.actor, tc.spaceID, tc.filter)
			require.NoError(t, err, tc.name)
			var titles []string
			for _, task := range page.Tasks {
				titles = append(titles, task.Title)
			}
			require.Equal(t, tc.want, titles, tc.name)
			require.Equal(t, tc.total, page.Total, "%s: total", tc.name)
			require.Equal(t, tc.next, page.NextOffset, "%s: next offset", tc.name)
		}

		// A page's rows are whole tasks.
		page, err := f.svc.ListTasks(ctx, f.viewer, f.acme, workspace.TaskFilter{ProjectID: plan.ID, Limit: 1})
		require.NoError(t, err)
		want, err := f.svc.GetTask(ctx, f.viewer, f.acme, page.Tasks[0].ID)
		require.NoError(t, err)
		require.Equal(t, want, page.Tasks[0])
	})
}

// TestProjectPages is TestTaskPages for projects.
func TestProjectPages(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		for _, p := range []workspace.NewProject{
			{Name: "Gamma launch", Description: "the third"},
			{Name: "Alpha"},
			{Name: "Beta launch", Status: workspace.ProjectPaused},
			{Name: "Delta 100%", Status: workspace.ProjectDone},
			{Name: "Zeta Öl launch"},
		} {
			_, err := f.svc.CreateProject(t.Context(), f.owner, f.acme, p)
			require.NoError(t, err)
		}
		_, err := f.svc.Access(ctx, f.viewer.PersonID, f.acme)
		require.NoError(t, err)
		_, err = f.svc.Access(ctx, f.outsider.PersonID, f.other)
		require.NoError(t, err)

		for _, tc := range []struct {
			listCase
			actor   workspace.Actor
			spaceID string
			filter  workspace.ProjectFilter
		}{
			{listCase{"first page", []string{"Alpha", "Beta launch"}, 5, 2},
				f.viewer, f.acme, workspace.ProjectFilter{Limit: 2}},
			{listCase{"middle page", []string{"Delta 100%", "Gamma launch"}, 5, 4},
				f.viewer, f.acme, workspace.ProjectFilter{Limit: 2, Offset: 2}},
			{listCase{"last page", []string{"Zeta Öl launch"}, 5, 0},
				f.viewer, f.acme, workspace.ProjectFilter{Limit: 2, Offset: 4}},
			{listCase{"offset at the end", nil, 5, 0},
				f.viewer, f.acme, workspace.ProjectFilter{Limit: 2, Offset: 5}},
			{listCase{"offset past the end", nil, 5, 0},
				f.viewer, f.acme, workspace.ProjectFilter{Offset: 50}},
			{listCase{"empty space", nil, 0, 0},
				f.outsider, f.other, workspace.ProjectFilter{}},
			{listCase{"empty space past 0", nil, 0, 0},
				f.outsider, f.other, workspace.ProjectFilter{Offset: 1}},
			{listCase{"status", []string{"Alpha"}, 3, 1},
				f.viewer, f.acme, workspace.ProjectFilter{Status: workspace.ProjectActive, Limit: 1}},
			{listCase{"search", []string{"Beta launch", "Gamma launch", "Zeta Öl launch"}, 3, 0},
				f.viewer, f.acme, workspace.ProjectFilter{Query: "LAUNCH"}},
			{listCase{"search, not ASCII", []string{"Zeta Öl launch"}, 1, 0},
				f.viewer, f.acme, workspace.ProjectFilter{Query: "öl"}},
			{listCase{"search, escaped", []string{"Delta 100%"}, 1, 0},
				f.viewer, f.acme, workspace.ProjectFilter{Query: "0%"}},
			{listCase{"search and status", []string{"Zeta Öl launch"}, 2, 0},
				f.viewer, f.acme, workspace.ProjectFilter{Query: "launch", Status: workspace.ProjectActive, Offset: 1}},
			{listCase{"search and status, past the end", nil, 2, 0},
				f.viewer, f.acme, workspace.ProjectFilter{Query: "launch", Status: workspace.ProjectActive, Offset: 2}},
		} {
			page, err := f.svc.ListProjects(ctx, tc.actor, tc.spaceID, tc.filter)
			require.NoError(t, err, tc.name)
			var names []string
			for _, p := range page.Projects {
				names = append(names, p.Name)
			}
			require.Equal(t, tc.want, names, tc.name)
			require.Equal(t, tc.total, page.Total, "%s: total", tc.name)
			require.Equal(t, tc.next, page.NextOffset, "%s: next offset", tc.name)
		}

		page, err := f.svc.ListProjects(ctx, f.viewer, f.acme, workspace.ProjectFilter{Query: "gamma"})
		require.NoError(t, err)
		want, err := f.svc.GetProject(ctx, f.viewer, f.acme, page.Projects[0].ID)
		require.NoError(t, err)
		require.Equal(t, want, page.Projects[0])
	})
}

// TestCreateTasksChecksEachReference: a create of several tasks in
// projects and for an assignee links each; an unknown project or person is
// refused at its own task's path.
func TestCreateTasksChecksEachReference(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		plan := f.project(t, f.owner, f.acme, "Plan")
		other := f.project(t, f.owner, f.acme, "Other")
		require.NoError(t, f.svc.CanWrite(ctx, f.owner.PersonID, f.acme))

		in := []workspace.NewTask{
			{Title: "One", ProjectID: plan.ID, AssigneeID: f.editor.PersonID},
			{Title: "Two", ProjectID: plan.ID, AssigneeID: f.editor.PersonID},
			{Title: "Three", ProjectID: other.ID, AssigneeID: f.editor.PersonID},
			{Title: "Four", ProjectID: plan.ID},
		}
		out, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", in)
		require.NoError(t, err)
		require.Len(t, out, 4)
		require.Equal(t, []string{plan.ID, plan.ID, other.ID, plan.ID}, []string{out[0].ProjectID, out[1].ProjectID, out[2].ProjectID, out[3].ProjectID})
		require.Equal(t, f.editor.PersonID, out[2].AssigneeID)

		_, err = f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{
			{Title: "Five", ProjectID: plan.ID}, {Title: "Six", ProjectID: "proj_missing"},
		})
		requireNotFound(t, err, "project", "/tasks/1/projectId")
		_, err = f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{
			{Title: "Five", AssigneeID: f.editor.PersonID}, {Title: "Six", AssigneeID: f.outsider.PersonID},
		})
		requireNotFound(t, err, "person", "/tasks/1/assigneeId")
	})
}

// TestDeleteTaskReturnsItAsDeleted: a delete removes the task and returns
// it as it was deleted; an unknown id, another space's task and a task already gone are not
// found, and change nothing.
func TestDeleteTaskReturnsItAsDeleted(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		plan := f.project(t, f.owner, f.acme, "Plan")
		tk := f.task(t, workspace.NewTask{Title: "Doomed", ProjectID: plan.ID, DueDate: "2026-03-31", AssigneeID: f.editor.PersonID})
		_, err := f.svc.UpdateTask(t.Context(), f.owner, f.acme, tk.ID, workspace.TaskPatch{Status: ptr(workspace.TaskDoing)})
		require.NoError(t, err)
		tk, err = f.svc.GetTask(t.Context(), f.owner, f.acme, tk.ID) // as stored
		require.NoError(t, err)
		require.Equal(t, 2, tk.Revision)
		theirs, err := f.svc.CreateTasks(t.Context(), f.outsider, f.other, "/tasks", []workspace.NewTask{{Title: "Theirs"}})
		require.NoError(t, err)
		require.NoError(t, f.svc.CanWrite(ctx, f.owner.PersonID, f.acme))

		gone, err := f.svc.DeleteTask(ctx, f.owner, f.acme, tk.ID)
		require.NoError(t, err)
		require.Equal(t, tk, gone, "the task as it was deleted")

		_, err = f.svc.DeleteTask(ctx, f.owner, f.acme, tk.ID)
		requireNotFound(t, err, "task", "")
		_, err = f.svc.DeleteTask(ctx, f.owner, f.acme, theirs[0].ID)
		requireNotFound(t, err, "task", "")
		_, err = f.svc.DeleteTask(ctx, f.owner, f.acme, "task_\x00")
		requireNotFound(t, err, "task", "")
		_, err = f.svc.GetTask(t.Context(), f.outsider, f.other, theirs[0].ID)
		require.NoError(t, err, "another space's task stays")

		page, err := f.svc.ListTasks(t.Context(), f.owner, f.acme, workspace.TaskFilter{})
		require.NoError(t, err)
		require.Zero(t, page.Total)
	})
}

// TestUndoGroupTakesWritesUntilUndone: three writes in an Undo group undo
// together; a group that was undone takes no more writes.
func TestUndoGroupTakesWritesUntilUndone(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		group, err := f.svc.NewUndoGroup(t.Context(), f.owner, f.acme, "three tasks")
		require.NoError(t, err)
		svc := f.svc.WithUndo(group)
		require.NoError(t, svc.CanWrite(ctx, f.owner.PersonID, f.acme))

		_, err = svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "One"}, {Title: "Two"}})
		require.NoError(t, err)
		_, err = svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "Three"}})
		require.NoError(t, err)

		res, err := f.svc.Undo(t.Context(), f.owner.PersonID, group)
		require.NoError(t, err)
		require.Len(t, res.Records, 3, "every numbered entry undone")
		page, err := f.svc.ListTasks(t.Context(), f.owner, f.acme, workspace.TaskFilter{})
		require.NoError(t, err)
		require.Zero(t, page.Total)

		_, err = svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "Four"}})
		require.ErrorIs(t, err, workspace.ErrConflict, "an undone group takes no writes")
	})
}

package workspace_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

func TestCreateTasks(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		proj := f.project(t, f.owner, f.acme, "Launch")
		created, err := f.svc.CreateTasks(ctx, f.editor, f.acme, "/tasks", []workspace.NewTask{
			{Title: "  Draft brief  "},
			{Title: "Call Mira", Status: "doing", DueDate: "2026-03-31", Priority: "high",
				ProjectID: proj.ID, AssigneeID: f.viewer.PersonID},
		})
		require.NoError(t, err)
		require.Len(t, created, 2)

		a, b := created[0], created[1]
		require.True(t, strings.HasPrefix(a.ID, "task_"))
		require.NotEqual(t, a.ID, b.ID)
		require.Equal(t, "Draft brief", a.Title, "trimmed")
		require.Equal(t, "todo", a.Status, "default status")
		require.Equal(t, "none", a.Priority, "default priority")
		require.Empty(t, a.DueDate)
		require.Empty(t, a.ProjectID)
		require.Empty(t, a.AssigneeID)
		require.Equal(t, 1, a.Revision)
		require.Equal(t, f.acme, a.SpaceID)

		require.Equal(t, "doing", b.Status)
		require.Equal(t, "2026-03-31", b.DueDate)
		require.Equal(t, "high", b.Priority)
		require.Equal(t, proj.ID, b.ProjectID)
		require.Equal(t, f.viewer.PersonID, b.AssigneeID, "a viewer can be assigned")

		got, err := f.svc.GetTask(ctx, f.viewer, f.acme, b.ID)
		require.NoError(t, err)
		require.Equal(t, b.ID, got.ID)
		require.Equal(t, b.Title, got.Title)
		require.Equal(t, b.DueDate, got.DueDate)
		require.Equal(t, b.ProjectID, got.ProjectID)
		require.Equal(t, b.AssigneeID, got.AssigneeID)
		require.Equal(t, b.Revision, got.Revision)
	})
}

func TestCreateTasksRefusesInvalidFields(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		foreignProject := f.project(t, f.outsider, f.other, "Their project")
		ok := workspace.NewTask{Title: "Fine"}
		for _, tc := range []struct {
			name string
			bad  workspace.NewTask
			path string
			kind string // set for a not-found id
		}{
			{"empty title", workspace.NewTask{Title: "   "}, "/tasks/1/title", ""},
			{"long title", workspace.NewTask{Title: strings.Repeat("é", workspace.MaxTitleLength+1)}, "/tasks/1/title", ""},
			{"status", workspace.NewTask{Title: "x", Status: "blocked"}, "/tasks/1/status", ""},
			{"priority", workspace.NewTask{Title: "x", Priority: "urgent"}, "/tasks/1/priority", ""},
			{"due date not a date", workspace.NewTask{Title: "x", DueDate: "next friday"}, "/tasks/1/dueDate", ""},
			{"due date that does not exist", workspace.NewTask{Title: "x", DueDate: "2026-02-30"}, "/tasks/1/dueDate", ""},
			{"due date with a time", workspace.NewTask{Title: "x", DueDate: "2026-02-03T10:00:00Z"}, "/tasks/1/dueDate", ""},
			{"project of another space", workspace.NewTask{Title: "x", ProjectID: foreignProject.ID}, "/tasks/1/projectId", "project"},
			{"missing project", workspace.NewTask{Title: "x", ProjectID: "proj_missing"}, "/tasks/1/projectId", "project"},
			{"assignee of another space", workspace.NewTask{Title: "x", AssigneeID: f.outsider.PersonID}, "/tasks/1/assigneeId", "person"},
			{"missing assignee", workspace.NewTask{Title: "x", AssigneeID: "person_missing"}, "/tasks/1/assigneeId", "person"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{ok, tc.bad})
				if tc.kind != "" {
					requireNotFound(t, err, tc.kind, tc.path)
				} else {
					requireInvalid(t, err, tc.path)
				}
			})
		}

		_, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", nil)
		requireInvalid(t, err, "/tasks")
		many := make([]workspace.NewTask, workspace.MaxTasksPerCall+1)
		for i := range many {
			many[i] = workspace.NewTask{Title: fmt.Sprint("t", i)}
		}
		_, err = f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", many)
		requireInvalid(t, err, "/tasks")

		// All or none: nothing of the failed calls was written.
		page, err := f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{})
		require.NoError(t, err)
		require.Zero(t, page.Total)

		// The longest title allowed, counted in characters rather than bytes.
		_, err = f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: strings.Repeat("é", workspace.MaxTitleLength)}})
		require.NoError(t, err)
		_, err = f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", many[:workspace.MaxTasksPerCall])
		require.NoError(t, err)
	})
}

func TestTaskAccess(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		mine := f.task(t, workspace.NewTask{Title: "Mine"})
		theirs, err := f.svc.CreateTasks(ctx, f.outsider, f.other, "/tasks", []workspace.NewTask{{Title: "Theirs"}})
		require.NoError(t, err)
		foreign := theirs[0].ID

		// A task of a space the person cannot open is not found, exactly as a
		// task that does not exist, for every call.
		for _, id := range []string{foreign, "task_missing"} {
			_, err := f.svc.GetTask(ctx, f.owner, f.acme, id)
			requireNotFound(t, err, "task", "")
			_, err = f.svc.UpdateTask(ctx, f.owner, f.acme, id, workspace.TaskPatch{Title: ptr("x")})
			requireNotFound(t, err, "task", "")
			_, err = f.svc.DeleteTask(ctx, f.owner, f.acme, id)
			requireNotFound(t, err, "task", "")
			_, err = f.svc.ResolveRef(ctx, f.owner, f.acme, workspace.KindTask, id)
			requireNotFound(t, err, "task", "")
		}
		// Naming the other space does not help a person who is not in it.
		_, err = f.svc.GetTask(ctx, f.owner, f.other, foreign)
		requireNotFound(t, err, "space", "")
		_, err = f.svc.ListTasks(ctx, f.owner, f.other, workspace.TaskFilter{})
		requireNotFound(t, err, "space", "")
		_, err = f.svc.CreateTasks(ctx, f.owner, f.other, "/tasks", []workspace.NewTask{{Title: "x"}})
		requireNotFound(t, err, "space", "")
		_, err = f.svc.DeleteTask(ctx, f.owner, f.other, foreign)
		requireNotFound(t, err, "space", "")

		// A viewer reads but gets ErrForbidden on every write.
		_, err = f.svc.GetTask(ctx, f.viewer, f.acme, mine.ID)
		require.NoError(t, err)
		_, err = f.svc.CreateTasks(ctx, f.viewer, f.acme, "/tasks", []workspace.NewTask{{Title: "x"}})
		require.ErrorIs(t, err, workspace.ErrForbidden)
		_, err = f.svc.UpdateTask(ctx, f.viewer, f.acme, mine.ID, workspace.TaskPatch{Title: ptr("x")})
		require.ErrorIs(t, err, workspace.ErrForbidden)
		_, err = f.svc.DeleteTask(ctx, f.viewer, f.acme, mine.ID)
		require.ErrorIs(t, err, workspace.ErrForbidden)
		got, err := f.svc.GetTask(ctx, f.owner, f.acme, mine.ID)
		require.NoError(t, err)
		require.Equal(t, "Mine", got.Title, "the viewer changed nothing")

		// Guests, editors and owners write.
		for _, actor := range []workspace.Actor{f.guest, f.editor, f.owner} {
			created, err := f.svc.CreateTasks(ctx, actor, f.acme, "/tasks", []workspace.NewTask{{Title: "By " + actor.PersonID}})
			require.NoError(t, err)
			_, err = f.svc.UpdateTask(ctx, actor, f.acme, created[0].ID, workspace.TaskPatch{Status: ptr("done")})
			require.NoError(t, err)
			_, err = f.svc.DeleteTask(ctx, actor, f.acme, created[0].ID)
			require.NoError(t, err)
		}
	})
}

func TestListTasks(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		proj := f.project(t, f.owner, f.acme, "Launch")
		created, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{
			{Title: "Write the launch post", Status: "doing", ProjectID: proj.ID},
			{Title: "Cut price by 50%", AssigneeID: f.editor.PersonID},
			{Title: "Cut price by 50 percent"},
			{Title: "rename file_name", ProjectID: proj.ID, AssigneeID: f.editor.PersonID},
			{Title: "rename filexname", Status: "done"},
			{Title: `back\slash`},
			{Title: "Ärger mit Öl"},
		})
		require.NoError(t, err)
		_, err = f.svc.CreateTasks(ctx, f.outsider, f.other, "/tasks", []workspace.NewTask{{Title: "Cut price by 50% elsewhere"}})
		require.NoError(t, err)
		require.Len(t, created, 7)

		for _, tc := range []struct {
			name   string
			filter workspace.TaskFilter
			want   []string
		}{
			{"everything, in the order created", workspace.TaskFilter{}, []string{
				"Write the launch post", "Cut price by 50%", "Cut price by 50 percent", "rename file_name", "rename filexname", `back\slash`, "Ärger mit Öl"}},
			{"status", workspace.TaskFilter{Status: "doing"}, []string{"Write the launch post"}},
			{"project", workspace.TaskFilter{ProjectID: proj.ID}, []string{"Write the launch post", "rename file_name"}},
			{"assignee", workspace.TaskFilter{AssigneeID: f.editor.PersonID}, []string{"Cut price by 50%", "rename file_name"}},
			{"project and assignee", workspace.TaskFilter{ProjectID: proj.ID, AssigneeID: f.editor.PersonID}, []string{"rename file_name"}},
			{"a word, any case", workspace.TaskFilter{Query: "LAUNCH"}, []string{"Write the launch post"}},
			{"every word must match", workspace.TaskFilter{Query: "cut percent"}, []string{"Cut price by 50 percent"}},
			{"percent sign matches itself", workspace.TaskFilter{Query: "50%"}, []string{"Cut price by 50%"}},
			{"a lone percent sign", workspace.TaskFilter{Query: "%"}, []string{"Cut price by 50%"}},
			{"underscore matches itself", workspace.TaskFilter{Query: "file_name"}, []string{"rename file_name"}},
			{"a lone underscore", workspace.TaskFilter{Query: "_"}, []string{"rename file_name"}},
			{"backslash matches itself", workspace.TaskFilter{Query: `k\s`}, []string{`back\slash`}},
			{"a non-ASCII word as written", workspace.TaskFilter{Query: "Öl"}, []string{"Ärger mit Öl"}},
			{"a non-ASCII title by an ASCII word in any case", workspace.TaskFilter{Query: "MIT"}, []string{"Ärger mit Öl"}},
			{"a non-ASCII word in another case", workspace.TaskFilter{Query: "öL ärger"}, []string{"Ärger mit Öl"}},
			{"a non-ASCII word in capitals", workspace.TaskFilter{Query: "ÄRGER"}, []string{"Ärger mit Öl"}},
			{"no match", workspace.TaskFilter{Query: "zebra"}, nil},
			{"blank query is no filter", workspace.TaskFilter{Query: "   ", Status: "done"}, []string{"rename filexname"}},
			{"a project of another space matches nothing", workspace.TaskFilter{ProjectID: "proj_elsewhere"}, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				page, err := f.svc.ListTasks(ctx, f.viewer, f.acme, tc.filter)
				require.NoError(t, err)
				var got []string
				for _, task := range page.Tasks {
					require.Equal(t, f.acme, task.SpaceID)
					got = append(got, task.Title)
				}
				require.Equal(t, tc.want, got)
				require.EqualValues(t, len(tc.want), page.Total)
				require.Zero(t, page.NextOffset)
			})
		}

		_, err = f.svc.ListTasks(ctx, f.viewer, f.acme, workspace.TaskFilter{Status: "blocked"})
		requireInvalid(t, err, "/status")
		_, err = f.svc.ListTasks(ctx, f.viewer, f.acme, workspace.TaskFilter{Limit: -1})
		requireInvalid(t, err, "/limit")
		_, err = f.svc.ListTasks(ctx, f.viewer, f.acme, workspace.TaskFilter{Offset: -1})
		requireInvalid(t, err, "/offset")
		page, err := f.svc.ListTasks(ctx, f.viewer, f.acme, workspace.TaskFilter{Limit: 1000})
		require.NoError(t, err, "a limit above the most a page holds is that most")
		require.NotEmpty(t, page.Tasks)
	})
}

func TestListTasksPaging(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		var want []string
		// Several calls, several tasks each: the order is the order created.
		for call := range 3 {
			var in []workspace.NewTask
			for i := range 4 {
				title := fmt.Sprintf("task %02d", call*4+i)
				in = append(in, workspace.NewTask{Title: title})
				want = append(want, title)
			}
			_, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", in)
			require.NoError(t, err)
		}

		var got []string
		offset, pages := 0, 0
		for {
			page, err := f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{Limit: 5, Offset: offset})
			require.NoError(t, err)
			require.EqualValues(t, 12, page.Total, "every match is counted on every page")
			require.LessOrEqual(t, len(page.Tasks), 5)
			for _, task := range page.Tasks {
				got = append(got, task.Title)
			}
			pages++
			if page.NextOffset == 0 {
				break
			}
			require.Equal(t, offset+5, page.NextOffset)
			offset = page.NextOffset
		}
		require.Equal(t, 3, pages)
		require.Equal(t, want, got, "no gap, no repeat")

		page, err := f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{Offset: 40})
		require.NoError(t, err)
		require.Empty(t, page.Tasks, "past the end")
		require.EqualValues(t, 12, page.Total)
		require.Zero(t, page.NextOffset)

		// Each word matches anywhere in the title: "1" in 01, 10 and 11.
		page, err = f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{Query: "task 1", Limit: 2, Offset: 1})
		require.NoError(t, err)
		require.EqualValues(t, 3, page.Total)
		require.Equal(t, []string{"task 10", "task 11"}, titles(page.Tasks))
		require.Zero(t, page.NextOffset, "the last page")
	})
}

func TestListTasksLimits(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		for range 5 {
			in := make([]workspace.NewTask, workspace.MaxTasksPerCall)
			for i := range in {
				in[i] = workspace.NewTask{Title: fmt.Sprint("t", i)}
			}
			_, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", in)
			require.NoError(t, err)
		}
		page, err := f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{})
		require.NoError(t, err)
		require.Len(t, page.Tasks, workspace.DefaultListLimit)
		require.Equal(t, workspace.DefaultListLimit, page.NextOffset)
		require.EqualValues(t, 250, page.Total)

		page, err = f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{Limit: 1000})
		require.NoError(t, err)
		require.Len(t, page.Tasks, workspace.MaxListLimit, "a limit is capped")
		require.Equal(t, workspace.MaxListLimit, page.NextOffset)
	})
}

func titles(tasks []workspace.Task) []string {
	var out []string
	for _, t := range tasks {
		out = append(out, t.Title)
	}
	return out
}

func TestUpdateTask(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		proj := f.project(t, f.owner, f.acme, "Launch")
		task := f.task(t, workspace.NewTask{Title: "Draft", DueDate: "2026-03-01", ProjectID: proj.ID, AssigneeID: f.editor.PersonID, Priority: "low"})

		updated, err := f.svc.UpdateTask(ctx, f.editor, f.acme, task.ID, workspace.TaskPatch{
			Title: ptr("Draft brief"), Status: ptr("doing"), Revision: ptr(1),
		})
		require.NoError(t, err)
		require.Equal(t, 2, updated.Revision)
		require.Equal(t, "Draft brief", updated.Title)
		require.Equal(t, "doing", updated.Status)
		require.Equal(t, "2026-03-01", updated.DueDate, "fields not in the patch stay")
		require.Equal(t, "low", updated.Priority)
		require.Equal(t, proj.ID, updated.ProjectID)

		// An update against an older revision fails instead of overwriting.
		_, err = f.svc.UpdateTask(ctx, f.editor, f.acme, task.ID, workspace.TaskPatch{Title: ptr("Older"), Revision: ptr(1)})
		require.ErrorIs(t, err, workspace.ErrStale)
		require.ErrorContains(t, err, "Draft brief")

		// Empty strings clear the optional fields.
		cleared, err := f.svc.UpdateTask(ctx, f.editor, f.acme, task.ID, workspace.TaskPatch{
			DueDate: ptr(""), ProjectID: ptr(""), AssigneeID: ptr(""), Revision: ptr(2),
		})
		require.NoError(t, err)
		require.Empty(t, cleared.DueDate)
		require.Empty(t, cleared.ProjectID)
		require.Empty(t, cleared.AssigneeID)

		got, err := f.svc.GetTask(ctx, f.owner, f.acme, task.ID)
		require.NoError(t, err)
		require.Equal(t, 3, got.Revision)
		require.Equal(t, "Draft brief", got.Title)
		require.Equal(t, "doing", got.Status)
		require.Empty(t, got.DueDate, "cleared in the database too")
		require.Empty(t, got.ProjectID)
		require.Empty(t, got.AssigneeID)

		// Without a revision the update applies to the current one.
		got, err = f.svc.UpdateTask(ctx, f.editor, f.acme, task.ID, workspace.TaskPatch{DueDate: ptr("2026-04-01")})
		require.NoError(t, err)
		require.Equal(t, 4, got.Revision)
		require.Equal(t, "2026-04-01", got.DueDate)

		// An empty patch changes nothing, so it is refused and the revision
		// stays (it would make every other editor's next save a conflict);
		// a revision alone is no change either.
		for _, p := range []workspace.TaskPatch{{}, {Revision: ptr(4)}} {
			_, err = f.svc.UpdateTask(ctx, f.editor, f.acme, task.ID, p)
			var inv *workspace.InvalidError
			require.ErrorAs(t, err, &inv)
			require.Contains(t, inv.Message, "nothing to change")
		}
		got, err = f.svc.GetTask(ctx, f.editor, f.acme, task.ID)
		require.NoError(t, err)
		require.Equal(t, 4, got.Revision)
	})
}

func TestUpdateTaskRefusesInvalidFields(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		task := f.task(t, workspace.NewTask{Title: "Draft", DueDate: "2026-03-01"})
		foreign := f.project(t, f.outsider, f.other, "Theirs")
		for _, tc := range []struct {
			name  string
			patch workspace.TaskPatch
			path  string
			kind  string
		}{
			{"empty title", workspace.TaskPatch{Title: ptr("")}, "/title", ""},
			{"status", workspace.TaskPatch{Status: ptr("")}, "/status", ""},
			{"priority", workspace.TaskPatch{Priority: ptr("HIGH")}, "/priority", ""},
			{"due date", workspace.TaskPatch{DueDate: ptr("31/03/2026")}, "/dueDate", ""},
			{"project of another space", workspace.TaskPatch{ProjectID: &foreign.ID}, "/projectId", "project"},
			{"assignee of another space", workspace.TaskPatch{AssigneeID: &f.outsider.PersonID}, "/assigneeId", "person"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := f.svc.UpdateTask(ctx, f.owner, f.acme, task.ID, tc.patch)
				if tc.kind != "" {
					requireNotFound(t, err, tc.kind, tc.path)
				} else {
					requireInvalid(t, err, tc.path)
				}
			})
		}
		got, err := f.svc.GetTask(ctx, f.owner, f.acme, task.ID)
		require.NoError(t, err)
		require.Equal(t, 1, got.Revision, "no failed update changed the task")
		require.Equal(t, "2026-03-01", got.DueDate)
	})
}

// Two updates of the same revision at once: one wins, the other is stale.
func TestUpdateTaskRace(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		task := f.task(t, workspace.NewTask{Title: "Draft"})
		const n = 6
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = f.svc.UpdateTask(ctx, f.owner, f.acme, task.ID, workspace.TaskPatch{Title: ptr(fmt.Sprint("v", i)), Revision: ptr(1)})
			})
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
				continue
			}
			require.ErrorIs(t, err, workspace.ErrStale)
		}
		require.Equal(t, 1, won)
		got, err := f.svc.GetTask(ctx, f.owner, f.acme, task.ID)
		require.NoError(t, err)
		require.Equal(t, 2, got.Revision)
	})
}

func TestDeleteTask(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		keep := f.task(t, workspace.NewTask{Title: "Keep"})
		gone := f.task(t, workspace.NewTask{Title: "Gone"})
		deleted, err := f.svc.DeleteTask(ctx, f.guest, f.acme, gone.ID)
		require.NoError(t, err)
		require.Equal(t, "Gone", deleted.Title, "returns what was deleted")
		_, err = f.svc.GetTask(ctx, f.owner, f.acme, gone.ID)
		requireNotFound(t, err, "task", "")
		_, err = f.svc.DeleteTask(ctx, f.guest, f.acme, gone.ID)
		requireNotFound(t, err, "task", "")
		page, err := f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{})
		require.NoError(t, err)
		require.Equal(t, []string{keep.Title}, titles(page.Tasks))
	})
}

// A Service made by Tx runs every call in the transaction: an error rolls
// all of them back.
func TestTx(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		err := f.svc.InTx(ctx, func(ctx context.Context) error {
			if _, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "A"}}); err != nil {
				return err
			}
			_, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: ""}})
			return err
		})
		requireInvalid(t, err, "/tasks/0/title")
		page, err := f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{})
		require.NoError(t, err)
		require.Zero(t, page.Total, "the first create was rolled back")

		require.NoError(t, f.svc.InTx(ctx, func(ctx context.Context) error {
			_, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "A"}})
			return err
		}))
		page, err = f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{})
		require.NoError(t, err)
		require.EqualValues(t, 1, page.Total)
	})
}

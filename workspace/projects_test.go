package workspace_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

func TestProjectsCRUD(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		p, err := f.svc.CreateProject(ctx, f.guest, f.acme, workspace.NewProject{Name: "  Website  ", Description: "The new site"})
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(p.ID, "proj_"))
		require.Equal(t, "Website", p.Name)
		require.Equal(t, "active", p.Status, "default status")
		require.Equal(t, "The new site", p.Description)
		require.Equal(t, 1, p.Revision)
		_, err = f.svc.CreateProject(ctx, f.editor, f.acme, workspace.NewProject{Name: "Launch", Status: "paused"})
		require.NoError(t, err)
		_, err = f.svc.CreateProject(ctx, f.outsider, f.other, workspace.NewProject{Name: "Elsewhere"})
		require.NoError(t, err)

		page, err := f.svc.ListProjects(ctx, f.viewer, f.acme, workspace.ProjectFilter{})
		require.NoError(t, err)
		list := page.Projects
		require.Len(t, list, 2, "only this space's projects")
		require.Equal(t, "Launch", list[0].Name, "by name")
		require.Equal(t, "paused", list[0].Status)
		require.Equal(t, "Website", list[1].Name)

		got, err := f.svc.GetProject(ctx, f.viewer, f.acme, p.ID)
		require.NoError(t, err)
		require.Equal(t, p.Name, got.Name)
		require.Equal(t, p.Description, got.Description)

		up, err := f.svc.UpdateProject(ctx, f.editor, f.acme, p.ID, workspace.ProjectPatch{Status: ptr("done"), Revision: ptr(1)})
		require.NoError(t, err)
		require.Equal(t, "done", up.Status)
		require.Equal(t, "Website", up.Name, "unchanged fields stay")
		require.Equal(t, 2, up.Revision)
		_, err = f.svc.UpdateProject(ctx, f.editor, f.acme, p.ID, workspace.ProjectPatch{Name: ptr("Old"), Revision: ptr(1)})
		require.ErrorIs(t, err, workspace.ErrStale)
		up, err = f.svc.UpdateProject(ctx, f.editor, f.acme, p.ID, workspace.ProjectPatch{Description: ptr("")})
		require.NoError(t, err)
		require.Empty(t, up.Description, "an empty description clears it")
		got, err = f.svc.GetProject(ctx, f.owner, f.acme, p.ID)
		require.NoError(t, err)
		require.Equal(t, 3, got.Revision)
		require.Equal(t, "done", got.Status)
		require.Empty(t, got.Description)

		deleted, err := f.svc.DeleteProject(ctx, f.owner, f.acme, p.ID)
		require.NoError(t, err)
		require.Equal(t, "Website", deleted.Name)
		_, err = f.svc.GetProject(ctx, f.owner, f.acme, p.ID)
		requireNotFound(t, err, "project", "")
	})
}

func TestProjectInvalidFields(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		for _, tc := range []struct {
			name string
			in   workspace.NewProject
			path string
		}{
			{"no name", workspace.NewProject{Name: " "}, "/name"},
			{"long name", workspace.NewProject{Name: strings.Repeat("x", workspace.MaxTitleLength+1)}, "/name"},
			{"status", workspace.NewProject{Name: "x", Status: "archived"}, "/status"},
			{"long description", workspace.NewProject{Name: "x", Description: strings.Repeat("ü", workspace.MaxDescriptionLength+1)}, "/description"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := f.svc.CreateProject(ctx, f.owner, f.acme, tc.in)
				requireInvalid(t, err, tc.path)
			})
		}
		p := f.project(t, f.owner, f.acme, "Kept")
		_, err := f.svc.UpdateProject(ctx, f.owner, f.acme, p.ID, workspace.ProjectPatch{Name: ptr("")})
		requireInvalid(t, err, "/name")
		_, err = f.svc.UpdateProject(ctx, f.owner, f.acme, p.ID, workspace.ProjectPatch{Status: ptr("")})
		requireInvalid(t, err, "/status")
		page, err := f.svc.ListProjects(ctx, f.owner, f.acme, workspace.ProjectFilter{})
		require.NoError(t, err)
		list := page.Projects
		require.Len(t, list, 1)
		require.Equal(t, "Kept", list[0].Name)
		require.Equal(t, 1, list[0].Revision)
	})
}

func TestProjectAccess(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		mine := f.project(t, f.owner, f.acme, "Mine")
		theirs := f.project(t, f.outsider, f.other, "Theirs")

		for _, id := range []string{theirs.ID, "proj_missing"} {
			_, err := f.svc.GetProject(ctx, f.owner, f.acme, id)
			requireNotFound(t, err, "project", "")
			_, err = f.svc.UpdateProject(ctx, f.owner, f.acme, id, workspace.ProjectPatch{Name: ptr("x")})
			requireNotFound(t, err, "project", "")
			_, err = f.svc.DeleteProject(ctx, f.owner, f.acme, id)
			requireNotFound(t, err, "project", "")
		}
		_, err := f.svc.ListProjects(ctx, f.owner, f.other, workspace.ProjectFilter{})
		requireNotFound(t, err, "space", "")
		_, err = f.svc.CreateProject(ctx, f.owner, f.other, workspace.NewProject{Name: "x"})
		requireNotFound(t, err, "space", "")

		_, err = f.svc.CreateProject(ctx, f.viewer, f.acme, workspace.NewProject{Name: "x"})
		require.ErrorIs(t, err, workspace.ErrForbidden)
		_, err = f.svc.UpdateProject(ctx, f.viewer, f.acme, mine.ID, workspace.ProjectPatch{Name: ptr("x")})
		require.ErrorIs(t, err, workspace.ErrForbidden)
		_, err = f.svc.DeleteProject(ctx, f.viewer, f.acme, mine.ID)
		require.ErrorIs(t, err, workspace.ErrForbidden)

		got, err := f.svc.GetProject(ctx, f.outsider, f.other, theirs.ID)
		require.NoError(t, err)
		require.Equal(t, "Theirs", got.Name, "untouched")
		got, err = f.svc.GetProject(ctx, f.viewer, f.acme, mine.ID)
		require.NoError(t, err)
		require.Equal(t, "Mine", got.Name)
	})
}

func TestDeleteProjectKeepsItsTasks(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		gone := f.project(t, f.owner, f.acme, "Gone")
		kept := f.project(t, f.owner, f.acme, "Kept")
		a := f.task(t, workspace.NewTask{Title: "A", ProjectID: gone.ID})
		b := f.task(t, workspace.NewTask{Title: "B", ProjectID: kept.ID})

		_, err := f.svc.DeleteProject(ctx, f.editor, f.acme, gone.ID)
		require.NoError(t, err)

		got, err := f.svc.GetTask(ctx, f.owner, f.acme, a.ID)
		require.NoError(t, err, "the task stays")
		require.Empty(t, got.ProjectID, "without a project")
		got, err = f.svc.GetTask(ctx, f.owner, f.acme, b.ID)
		require.NoError(t, err)
		require.Equal(t, kept.ID, got.ProjectID, "other projects' tasks keep theirs")

		page, err := f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{ProjectID: gone.ID})
		require.NoError(t, err)
		require.Zero(t, page.Total)
	})
}

func TestResolveRef(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		proj := f.project(t, f.owner, f.acme, "Launch")
		due := f.task(t, workspace.NewTask{Title: "Draft brief", DueDate: "2026-03-31"})
		plain := f.task(t, workspace.NewTask{Title: "Call Mira", Status: "doing"})
		theirs := f.project(t, f.outsider, f.other, "Theirs")

		for _, tc := range []struct {
			name     string
			kind, id string
			want     workspace.Ref
		}{
			{"task with a due date", workspace.KindTask, due.ID, workspace.Ref{Kind: "task", ID: due.ID, Label: "Draft brief", Detail: "todo, due 2026-03-31"}},
			{"task", workspace.KindTask, plain.ID, workspace.Ref{Kind: "task", ID: plain.ID, Label: "Call Mira", Detail: "doing"}},
			{"project", workspace.KindProject, proj.ID, workspace.Ref{Kind: "project", ID: proj.ID, Label: "Launch", Detail: "active"}},
			{"person", workspace.KindPerson, f.editor.PersonID, workspace.Ref{Kind: "person", ID: f.editor.PersonID, Label: "Eddie Editor", Detail: "editor"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := f.svc.ResolveRef(ctx, f.viewer, f.acme, tc.kind, tc.id)
				require.NoError(t, err)
				require.Equal(t, tc.want, got)
			})
		}

		_, err := f.svc.ResolveRef(ctx, f.viewer, f.acme, workspace.KindProject, theirs.ID)
		requireNotFound(t, err, "project", "")
		_, err = f.svc.ResolveRef(ctx, f.viewer, f.acme, workspace.KindPerson, f.outsider.PersonID)
		requireNotFound(t, err, "person", "")
		_, err = f.svc.ResolveRef(ctx, f.viewer, f.acme, workspace.KindPerson, "person_missing")
		requireNotFound(t, err, "person", "")
		_, err = f.svc.ResolveRef(ctx, f.outsider, f.acme, workspace.KindTask, due.ID)
		requireNotFound(t, err, "space", "")
		_, err = f.svc.ResolveRef(ctx, f.viewer, f.acme, "file", "file_1")
		requireInvalid(t, err, "/kind")
	})
}

func TestErrorsMatchTheirSentinels(t *testing.T) {
	t.Parallel()
	inv := &workspace.InvalidError{Path: "/tasks/1/dueDate", Message: "bad date"}
	require.ErrorIs(t, inv, workspace.ErrInvalid)
	require.NotErrorIs(t, inv, workspace.ErrNotFound)
	require.Equal(t, "/tasks/1/dueDate: bad date", inv.Error())
	require.Equal(t, "bad date", (&workspace.InvalidError{Message: "bad date"}).Error())

	nf := &workspace.NotFoundError{Kind: "task", ID: "task_1", Path: "/id"}
	require.ErrorIs(t, nf, workspace.ErrNotFound)
	require.NotErrorIs(t, nf, workspace.ErrInvalid)
	require.Equal(t, `no task with id "task_1" in this space`, nf.Error())
}

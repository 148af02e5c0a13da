package workspace_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/storage"
	"hub/workspace"
)

// manyProjects adds n projects to Acme, "Project 001" to "Project n", the
// last five paused, written in reverse order so a list by name is not a list
// by creation.
func (f *fixture) manyProjects(t *testing.T, n int) {
	t.Helper()
	rows := make([]storage.Project, 0, n)
	for i := n; i >= 1; i-- {
		status := "active"
		if i > n-5 {
			status = "paused"
		}
		rows = append(rows, storage.Project{ID: storage.NewID("proj"), SpaceID: f.acme, Name: fmt.Sprintf("Project %03d", i),
			Status: status, Revision: 1, CreatedBy: f.owner.PersonID})
	}
	require.NoError(t, f.db.WithContext(t.Context()).CreateInBatches(rows, 100).Error)
}

func names(ps []workspace.Project) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func TestListProjectsPagesPastTheLimit(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		f.manyProjects(t, 205)

		page, err := f.svc.ListProjects(ctx, f.viewer, f.acme, workspace.ProjectFilter{})
		require.NoError(t, err)
		require.Len(t, page.Projects, workspace.DefaultListLimit, "50 by default")
		require.EqualValues(t, 205, page.Total, "total counts every project, past 200")
		require.Equal(t, 50, page.NextOffset)
		require.Equal(t, "Project 001", page.Projects[0].Name, "by name")

		// Every project, a page at a time, once each and in order.
		var all []string
		for offset := 0; ; {
			page, err := f.svc.ListProjects(ctx, f.viewer, f.acme, workspace.ProjectFilter{Limit: workspace.MaxListLimit, Offset: offset})
			require.NoError(t, err)
			all = append(all, names(page.Projects)...)
			if page.NextOffset == 0 {
				break
			}
			offset = page.NextOffset
		}
		require.Len(t, all, 205)
		require.Equal(t, "Project 200", all[199])
		require.Equal(t, "Project 205", all[204])

		page, err = f.svc.ListProjects(ctx, f.viewer, f.acme, workspace.ProjectFilter{Limit: 1000})
		require.NoError(t, err)
		require.Len(t, page.Projects, workspace.MaxListLimit, "a limit above 200 is 200, as for tasks")
		require.Equal(t, 200, page.NextOffset)

		page, err = f.svc.ListProjects(ctx, f.viewer, f.acme, workspace.ProjectFilter{Offset: 500})
		require.NoError(t, err)
		require.Empty(t, page.Projects)
		require.EqualValues(t, 205, page.Total)
		require.Zero(t, page.NextOffset)

		// Filters apply to every project, not to the first 200.
		page, err = f.svc.ListProjects(ctx, f.viewer, f.acme, workspace.ProjectFilter{Status: "paused", Limit: 2})
		require.NoError(t, err)
		require.Equal(t, []string{"Project 201", "Project 202"}, names(page.Projects))
		require.EqualValues(t, 5, page.Total)
		require.Equal(t, 2, page.NextOffset)
		page, err = f.svc.ListProjects(ctx, f.viewer, f.acme, workspace.ProjectFilter{Query: "project 20"})
		require.NoError(t, err)
		require.Equal(t, []string{"Project 020", "Project 120", "Project 200", "Project 201", "Project 202", "Project 203", "Project 204", "Project 205"}, names(page.Projects),
			"words of the name, ignoring case")
		require.Zero(t, page.NextOffset)
		page, err = f.svc.ListProjects(ctx, f.viewer, f.acme, workspace.ProjectFilter{Query: "%"})
		require.NoError(t, err)
		require.Empty(t, page.Projects, "% is a character to find, not a wildcard")

		// Another space's projects never count.
		_, err = f.svc.CreateProject(ctx, f.outsider, f.other, workspace.NewProject{Name: "Project 999"})
		require.NoError(t, err)
		page, err = f.svc.ListProjects(ctx, f.viewer, f.acme, workspace.ProjectFilter{Query: "999"})
		require.NoError(t, err)
		require.Zero(t, page.Total)
	})
}

func TestListProjectsRefusesBadPaging(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		for _, tc := range []struct {
			name string
			f    workspace.ProjectFilter
			path string
		}{
			{"negative limit", workspace.ProjectFilter{Limit: -1}, "/limit"},
			{"negative offset", workspace.ProjectFilter{Offset: -1}, "/offset"},
			{"unknown status", workspace.ProjectFilter{Status: "archived"}, "/status"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := f.svc.ListProjects(t.Context(), f.owner, f.acme, tc.f)
				requireInvalid(t, err, tc.path)
			})
		}
	})
}

package tools_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/hub"
	"hub/tools"
)

// projectList is hub_list_projects' data as the model reads it.
type projectList struct {
	Projects   []tools.ProjectData `json:"projects"`
	Total      int                 `json:"total"`
	Offset     int                 `json:"offset"`
	NextOffset int                 `json:"nextOffset"`
}

// oneProject is the data of hub_create_project and hub_update_project.
type oneProject struct {
	Project tools.ProjectData `json:"project"`
}

func TestProjectTools(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		env := f.env(f.owner, hub.RoleOwner)
		res, err := f.dispatch(t, env, "hub_create_project", `{"name":"Launch","description":"Ship it."}`)
		require.Nil(t, err)
		require.Equal(t, "Added 1 project: “Launch”.", res.Summary)
		created := dataOf[oneProject](t, res).Project
		require.Equal(t, tools.ProjectData{ID: created.ID, Name: "Launch", Status: "active", Description: "Ship it.", Revision: 1}, created)
		require.Equal(t, []hub.Ref{{Kind: "project", ID: created.ID, Label: "Launch", Detail: "active"}}, res.Refs)
		require.NotContains(t, res.Summary, created.ID)

		_, err = f.dispatch(t, env, "hub_create_project", `{"name":"Hiring","status":"paused"}`)
		require.Nil(t, err)

		res, err = f.dispatch(t, env, "hub_list_projects", `{}`)
		require.Nil(t, err)
		require.Equal(t, "Found 2 projects: “Hiring” and “Launch”.", res.Summary, "by name")
		list := dataOf[projectList](t, res)
		require.Equal(t, 2, list.Total)
		require.Len(t, res.Refs, 2)

		res, err = f.dispatch(t, env, "hub_list_projects", `{"status":"paused"}`)
		require.Nil(t, err)
		require.Equal(t, "Found 1 project: “Hiring”.", res.Summary)
		res, err = f.dispatch(t, env, "hub_list_projects", `{"query":"LAUN"}`)
		require.Nil(t, err)
		require.Equal(t, "Found 1 project: “Launch”.", res.Summary)
		res, err = f.dispatch(t, env, "hub_list_projects", `{"query":"nothing"}`)
		require.Nil(t, err)
		require.Equal(t, "No projects match.", res.Summary)
		require.Empty(t, dataOf[projectList](t, res).Projects)

		res, err = f.dispatch(t, env, "hub_list_projects", `{"limit":1}`)
		require.Nil(t, err)
		list = dataOf[projectList](t, res)
		require.Equal(t, "Found 2 projects: “Hiring”.", res.Summary, "counts every match")
		require.Equal(t, 1, list.NextOffset)
		res, err = f.dispatch(t, env, "hub_list_projects", `{"limit":1,"offset":1}`)
		require.Nil(t, err)
		list = dataOf[projectList](t, res)
		require.Equal(t, "Launch", list.Projects[0].Name)
		require.Zero(t, list.NextOffset, "the last page")

		res, err = f.dispatch(t, env, "hub_update_project", fmt.Sprintf(`{"id":%q,"revision":1,"status":"done","description":null}`, created.ID))
		require.Nil(t, err)
		require.Equal(t, "Updated 1 project: “Launch”.", res.Summary)
		updated := dataOf[oneProject](t, res).Project
		require.Equal(t, tools.ProjectData{ID: created.ID, Name: "Launch", Status: "done", Revision: 2}, updated, "null cleared the description")

		// Stale: both revisions in the message, at /revision.
		_, err = f.dispatch(t, env, "hub_update_project", fmt.Sprintf(`{"id":%q,"revision":1,"name":"Relaunch"}`, created.ID))
		require.NotNil(t, err)
		require.Equal(t, tools.CodeStale, err.Code)
		require.Equal(t, "/revision", err.Path)
		require.Contains(t, err.Message, "revision 2")
		require.Contains(t, err.Message, "not 1")

		// A project of another space is not found, at /id.
		theirs, perr := f.svc.CreateProject(t.Context(), f.outsider, f.other, hub.NewProject{Name: "Theirs"})
		require.NoError(t, perr)
		_, err = f.dispatch(t, env, "hub_update_project", fmt.Sprintf(`{"id":%q,"name":"Mine now"}`, theirs.ID))
		require.NotNil(t, err)
		require.Equal(t, tools.CodeNotFound, err.Code)
		require.Equal(t, "/id", err.Path)
		after, gerr := f.svc.GetProject(t.Context(), f.outsider, f.other, theirs.ID)
		require.NoError(t, gerr)
		require.Equal(t, "Theirs", after.Name)

		for _, tc := range []struct{ name, tool, args, path string }{
			{"nothing to change", "hub_update_project", fmt.Sprintf(`{"id":%q,"revision":2}`, created.ID), ""},
			{"a blank name", "hub_create_project", `{"name":"   "}`, "/name"},
			{"an unknown status", "hub_update_project", fmt.Sprintf(`{"id":%q,"status":"archived"}`, created.ID), "/status"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := f.dispatch(t, env, tc.tool, tc.args)
				require.NotNil(t, err)
				require.Equal(t, tools.CodeInvalidPayload, err.Code)
				require.Equal(t, tc.path, err.Path)
			})
		}

		// A viewer reads, and may not write.
		_, err = f.dispatch(t, f.env(f.viewer, hub.RoleViewer), "hub_update_project", fmt.Sprintf(`{"id":%q,"name":"Viewer's"}`, created.ID))
		require.NotNil(t, err)
		require.Equal(t, tools.CodeForbidden, err.Code)
		_, err = f.dispatch(t, f.env(f.viewer, hub.RoleViewer), "hub_create_project", `{"name":"Viewer's"}`)
		require.NotNil(t, err)
		require.Equal(t, tools.CodeForbidden, err.Code)
		res, err = f.dispatch(t, f.env(f.viewer, hub.RoleViewer), "hub_list_projects", `{}`)
		require.Nil(t, err)
		require.Equal(t, "Found 2 projects: “Hiring” and “Launch”.", res.Summary, "nothing changed")
	})
}

// A held project update says which project and what changes, by name.
func TestUpdateProjectPreview(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		p := f.project(t, hub.NewProject{Name: "Launch", Description: "Old"})
		env := with(f.env(f.owner, hub.RoleOwner), hub.PolicyNeedsMe)
		res, err := f.dispatch(t, env, "hub_update_project", fmt.Sprintf(`{"id":%q,"name":"Relaunch","status":"paused","description":""}`, p.ID))
		require.Nil(t, err)
		require.True(t, res.Held)
		require.Equal(t, "Update project “Launch”: name “Relaunch”, status paused, description cleared.", res.Summary)

		res, err = f.dispatch(t, env, "hub_create_project", `{"name":"Hiring"}`)
		require.Nil(t, err)
		require.True(t, res.Held)
		require.Contains(t, res.Summary, "“Hiring”", "the generic preview names it")
		ps, lerr := f.svc.ListProjects(t.Context(), rest(f.owner), f.acme)
		require.NoError(t, lerr)
		require.Len(t, ps, 1, "held: nothing created")
		require.Equal(t, "Launch", ps[0].Name)
	})
}

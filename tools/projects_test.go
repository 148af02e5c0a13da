package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/storage"
	"hub/tools"
	"hub/workspace"
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
		env := f.env(f.owner, workspace.RoleOwner)
		res, err := f.dispatch(t, env, "hub_create_project", `{"name":"Launch","description":"Ship it."}`)
		require.Nil(t, err)
		require.Equal(t, "Added 1 project: “Launch”.", res.Summary)
		created := dataOf[oneProject](t, res).Project
		require.Equal(t, tools.ProjectData{ID: created.ID, Name: "Launch", Status: "active", Description: "Ship it.", Revision: 1}, created)
		require.Equal(t, []workspace.Ref{{Kind: "project", ID: created.ID, Label: "Launch", Detail: "active"}}, res.Refs)
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
		require.Equal(t, "Found 2 projects, showing number 1: “Hiring”.", res.Summary, "counts every match")
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
		theirs, perr := f.svc.CreateProject(t.Context(), f.outsider, f.other, workspace.NewProject{Name: "Theirs"})
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
		_, err = f.dispatch(t, f.env(f.viewer, workspace.RoleViewer), "hub_update_project", fmt.Sprintf(`{"id":%q,"name":"Viewer's"}`, created.ID))
		require.NotNil(t, err)
		require.Equal(t, tools.CodeForbidden, err.Code)
		_, err = f.dispatch(t, f.env(f.viewer, workspace.RoleViewer), "hub_create_project", `{"name":"Viewer's"}`)
		require.NotNil(t, err)
		require.Equal(t, tools.CodeForbidden, err.Code)
		res, err = f.dispatch(t, f.env(f.viewer, workspace.RoleViewer), "hub_list_projects", `{}`)
		require.Nil(t, err)
		require.Equal(t, "Found 2 projects: “Hiring” and “Launch”.", res.Summary, "nothing changed")
	})
}

// A held project update says which project and what changes, by name.
func TestUpdateProjectPreview(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		p := f.project(t, workspace.NewProject{Name: "Launch", Description: "Old"})
		env := with(f.env(f.owner, workspace.RoleOwner), workspace.PolicyNeedsMe)
		res, err := f.dispatch(t, env, "hub_update_project", fmt.Sprintf(`{"id":%q,"name":"Relaunch","status":"paused","description":""}`, p.ID))
		require.Nil(t, err)
		require.True(t, res.Held)
		require.Equal(t, "Update project “Launch”: name “Relaunch”, status paused, description cleared.", res.Summary)

		res, err = f.dispatch(t, env, "hub_create_project", `{"name":"Hiring"}`)
		require.Nil(t, err)
		require.True(t, res.Held)
		require.Contains(t, res.Summary, "“Hiring”", "the generic preview names it")
		ps, lerr := f.svc.ListProjects(t.Context(), rest(f.owner), f.acme, workspace.ProjectFilter{})
		require.NoError(t, lerr)
		require.Len(t, ps.Projects, 1, "held: nothing created")
		require.Equal(t, "Launch", ps.Projects[0].Name)
	})
}

// hub_list_projects reads a space's projects a page at a time, past the 200
// the domain reads at most at once, and tells the model how to page on.
func TestListProjectsPagesPastTheLimit(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		rows := make([]storage.Project, 0, 230)
		for i := 230; i >= 1; i-- {
			status := "active"
			if i > 225 {
				status = "paused" // the last five by name, past the first 200
			}
			rows = append(rows, storage.Project{ID: storage.NewID("proj"), SpaceID: f.acme, Name: fmt.Sprintf("Project %03d", i),
				Status: status, Revision: 1, CreatedBy: f.owner.PersonID})
		}
		require.NoError(t, f.db.WithContext(t.Context()).CreateInBatches(rows, 100).Error)
		env := f.env(f.viewer, workspace.RoleViewer)

		res, err := f.dispatch(t, env, "hub_list_projects", `{}`)
		require.Nil(t, err)
		require.Equal(t, "Found 230 projects, showing 1–50: “Project 001”, “Project 002”, “Project 003”, “Project 004”, “Project 005” and 45 more.", res.Summary)
		text := tools.ModelText(res, tools.MaxResultChars)
		data := mustJSON(t, text)["data"].(map[string]any)
		require.EqualValues(t, 230, data["total"])
		require.EqualValues(t, 50, data["nextOffset"])
		require.Len(t, data["projects"], 50)
		require.Contains(t, data["more"], "call hub_list_projects again with the same filters and offset set to nextOffset")

		res, err = f.dispatch(t, env, "hub_list_projects", `{"limit":200,"offset":200}`)
		require.Nil(t, err)
		require.Equal(t, "Found 230 projects, showing 201–230: “Project 201”, “Project 202”, “Project 203”, “Project 204”, “Project 205” and 25 more.", res.Summary)
		list := dataOf[projectList](t, res)
		require.Len(t, list.Projects, 30)
		require.Equal(t, "Project 230", list.Projects[29].Name)
		require.Zero(t, list.NextOffset, "the last page")
		require.NotContains(t, tools.ModelText(res, tools.MaxResultChars), `"more"`, "nothing more to fetch")

		res, err = f.dispatch(t, env, "hub_list_projects", `{"status":"paused"}`)
		require.Nil(t, err)
		require.Equal(t, "Found 5 projects: “Project 226”, “Project 227”, “Project 228”, “Project 229” and “Project 230”.", res.Summary,
			"a filter reaches every project, not the first 200")
		res, err = f.dispatch(t, env, "hub_list_projects", `{"query":"project 22","limit":2,"offset":8}`)
		require.Nil(t, err)
		require.Equal(t, "Found 12 projects, showing 9–10: “Project 226” and “Project 227”.", res.Summary)
		require.Equal(t, 10, dataOf[projectList](t, res).NextOffset)

		res, err = f.dispatch(t, env, "hub_list_projects", `{"offset":300}`)
		require.Nil(t, err)
		require.Equal(t, "Found 230 projects, none from number 301 on.", res.Summary, "past the end is not \"no projects\"")
		require.Empty(t, dataOf[projectList](t, res).Projects)

		// A page too long for one result is cut at whole projects, and the
		// note and nextOffset still say where to go on.
		long := strings.Repeat("A long description. ", 200)
		require.NoError(t, f.db.WithContext(t.Context()).Model(&storage.Project{}).Where("space_id = ?", f.acme).
			Update("description", long).Error)
		res, err = f.dispatch(t, env, "hub_list_projects", `{"limit":10}`)
		require.Nil(t, err)
		data = mustJSON(t, tools.ModelText(res, tools.MaxResultChars))["data"].(map[string]any)
		shown := len(data["projects"].([]any))
		require.Less(t, shown, 10)
		require.EqualValues(t, shown, data["nextOffset"], "nextOffset moves to the cut")
		require.Contains(t, data["more"], "offset set to nextOffset")
	})
}

func TestListProjectsRefusesBadPaging(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		for _, tc := range []struct{ name, args, path string }{
			{"zero limit", `{"limit":0}`, "/limit"},
			{"limit above 200", `{"limit":201}`, "/limit"},
			{"negative offset", `{"offset":-1}`, "/offset"},
			{"a limit in words", `{"limit":"ten"}`, "/limit"},
			{"a fractional offset", `{"offset":1.5}`, "/offset"},
			{"unknown status", `{"status":"archived"}`, "/status"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := f.dispatch(t, f.env(f.owner, workspace.RoleOwner), "hub_list_projects", tc.args)
				require.NotNil(t, err)
				require.Equal(t, tools.CodeInvalidPayload, err.Code)
				require.Equal(t, tc.path, err.Path)
				require.NotEmpty(t, err.Message)
			})
		}
	})
}

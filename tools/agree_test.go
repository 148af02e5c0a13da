package tools_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// The tools and the REST routes go through one workspace.Service, so a write
// through a tool reads back the same through the service calls the routes
// make, and a write through those calls is what the list tools show.
func TestToolsAndRESTAgree(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		screen := rest(f.editor)
		env := f.env(f.editor, workspace.RoleEditor)

		// Tool writes, screen reads.
		res, err := f.dispatch(t, env, "hub_create_project", `{"name":"Launch"}`)
		require.Nil(t, err)
		proj := dataOf[oneProject](t, res).Project
		res, err = f.dispatch(t, env, "hub_create_tasks", fmt.Sprintf(
			`{"tasks":[{"title":"Draft brief","dueDate":"2026-03-31","projectId":%q},{"title":"Call Mira"}]}`, proj.ID))
		require.Nil(t, err)
		created := dataOf[taskList](t, res).Tasks
		res, err = f.dispatch(t, env, "hub_update_tasks", fmt.Sprintf(
			`{"tasks":[{"id":%q,"revision":1,"status":"doing","assigneeId":%q}]}`, created[1].ID, f.guest.PersonID))
		require.Nil(t, err)
		updated := dataOf[taskList](t, res).Tasks[0]

		page, serr := f.svc.ListTasks(ctx, screen, f.acme, workspace.TaskFilter{})
		require.NoError(t, serr)
		require.Len(t, page.Tasks, 2)
		require.Equal(t, created[0], asTaskData(page.Tasks[0]))
		require.Equal(t, updated, asTaskData(page.Tasks[1]))
		require.Equal(t, tools.TaskData{ID: created[1].ID, Title: "Call Mira", Status: "doing", Priority: "none",
			AssigneeID: f.guest.PersonID, Revision: 2}, updated)
		gotProj, serr := f.svc.GetProject(ctx, screen, f.acme, proj.ID)
		require.NoError(t, serr)
		require.Equal(t, proj, tools.ProjectData{ID: gotProj.ID, Name: gotProj.Name, Status: gotProj.Status,
			Description: gotProj.Description, Revision: gotProj.Revision})

		// Screen writes, tools read.
		status, name := "done", "Launch v2"
		_, serr = f.svc.UpdateTask(ctx, screen, f.acme, created[0].ID, workspace.TaskPatch{Status: &status})
		require.NoError(t, serr)
		_, serr = f.svc.UpdateProject(ctx, screen, f.acme, proj.ID, workspace.ProjectPatch{Name: &name})
		require.NoError(t, serr)
		fresh, serr := f.svc.CreateTasks(ctx, screen, f.acme, "", []workspace.NewTask{{Title: "From the screen"}})
		require.NoError(t, serr)

		res, err = f.dispatch(t, env, "hub_list_tasks", `{}`)
		require.Nil(t, err)
		listed := dataOf[taskList](t, res).Tasks
		page, serr = f.svc.ListTasks(ctx, screen, f.acme, workspace.TaskFilter{})
		require.NoError(t, serr)
		require.Len(t, listed, len(page.Tasks))
		for i := range listed {
			require.Equal(t, asTaskData(page.Tasks[i]), listed[i])
		}
		require.Equal(t, "done", listed[0].Status)
		require.Equal(t, 2, listed[0].Revision)
		require.Equal(t, fresh[0].ID, listed[2].ID)

		res, err = f.dispatch(t, env, "hub_list_projects", `{}`)
		require.Nil(t, err)
		require.Equal(t, "Found 1 project: “Launch v2”.", res.Summary)
		require.Equal(t, 2, dataOf[projectList](t, res).Projects[0].Revision)

		res, err = f.dispatch(t, env, "hub_list_people", `{}`)
		require.Nil(t, err)
		people, serr := f.svc.ListPeople(ctx, screen.PersonID, f.acme)
		require.NoError(t, serr)
		listedPeople := dataOf[peopleList](t, res).People
		require.Len(t, listedPeople, len(people))
		for i, p := range people {
			require.Equal(t, tools.PersonData{ID: p.ID, Name: p.Name, FirstName: p.GivenName, Role: string(p.Role), Revision: p.Revision}, listedPeople[i])
		}

		// A tool's delete is gone for the screen; a screen's delete is gone
		// for the tools.
		_, err = f.dispatch(t, env, "hub_delete_tasks", fmt.Sprintf(`{"ids":[%q]}`, created[0].ID))
		require.Nil(t, err)
		_, serr = f.svc.GetTask(ctx, screen, f.acme, created[0].ID)
		require.ErrorIs(t, serr, workspace.ErrNotFound)
		_, serr = f.svc.DeleteTask(ctx, screen, f.acme, fresh[0].ID)
		require.NoError(t, serr)
		res, err = f.dispatch(t, env, "hub_list_tasks", `{}`)
		require.Nil(t, err)
		require.Equal(t, "Found 1 task: “Call Mira”.", res.Summary)
	})
}

func asTaskData(t workspace.Task) tools.TaskData {
	return tools.TaskData{ID: t.ID, Title: t.Title, Status: t.Status, DueDate: t.DueDate, Priority: t.Priority,
		ProjectID: t.ProjectID, AssigneeID: t.AssigneeID, Revision: t.Revision}
}

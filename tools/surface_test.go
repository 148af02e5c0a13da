package tools_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// surfaceData is hub_read_surface's data as the model reads it.
type surfaceData struct {
	View struct {
		Kind        string            `json:"kind"`
		Path        string            `json:"path"`
		Filters     map[string]string `json:"filters"`
		NotApplied  []string          `json:"notApplied"`
		SelectedIDs []string          `json:"selectedIds"`
		Notes       []string          `json:"notes"`
	} `json:"view"`
	Project *tools.ProjectData `json:"project"`
	Task    *tools.TaskData    `json:"task"`
	Person  *tools.PersonData  `json:"person"`
	Tasks   []struct {
		tools.TaskData
		Selected bool `json:"selected"`
	} `json:"tasks"`
	Total      int    `json:"total"`
	NextOffset int    `json:"nextOffset"`
	More       string `json:"more"`
}

// ParseSurface reads the view a page context names without reading the
// database: what the offer decides from and the tool starts with.
func TestParseSurface(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, page string
		view       string
		check      func(t *testing.T, s tools.Surface)
	}{
		{"the task list", `{"path":"/tasks","selectedIds":["task_1"],"filters":{"status":"todo"}}`, tools.ViewTasks, func(t *testing.T, s tools.Surface) {
			require.Equal(t, []string{"task_1"}, s.Selected)
			require.JSONEq(t, `"todo"`, string(s.Filters["status"]))
		}},
		{"a board, named by the surface", `{"surface":{"kind":"board","selected":["task_2","task_2"]}}`, tools.ViewTasks, func(t *testing.T, s tools.Surface) {
			require.Equal(t, []string{"task_2"}, s.Selected, "each id once")
		}},
		{"filters in the path's query, the surface's win", `{"path":"/tasks?status=done&q=brief","surface":{"filters":{"status":"doing"}}}`, tools.ViewTasks, func(t *testing.T, s tools.Surface) {
			require.JSONEq(t, `"doing"`, string(s.Filters["status"]))
			require.JSONEq(t, `"brief"`, string(s.Filters["q"]))
		}},
		{"a project's page", `{"path":"/projects/proj_1"}`, tools.ViewProject, func(t *testing.T, s tools.Surface) {
			require.Equal(t, "proj_1", s.ProjectID)
		}},
		{"a space's path", `{"path":"/spaces/space_1/projects/proj_1/tasks"}`, tools.ViewProject, func(t *testing.T, s tools.Surface) {
			require.Equal(t, "space_1", s.SpaceID)
			require.Equal(t, "proj_1", s.ProjectID)
		}},
		{"the record panel over a list", `{"path":"/tasks","open":{"kind":"task","id":"task_3"}}`, tools.ViewRecord, func(t *testing.T, s tools.Surface) {
			require.Equal(t, "task", s.OpenKind)
			require.Equal(t, "task_3", s.OpenID)
			require.NotNil(t, s.Under)
			require.Equal(t, tools.ViewTasks, s.Under.View)
			require.Empty(t, s.Under.OpenID)
		}},
		{"openId in the surface", `{"surface":{"openId":"proj_2"}}`, tools.ViewRecord, func(t *testing.T, s tools.Surface) {
			require.Equal(t, "proj_2", s.OpenID)
			require.Nil(t, s.Under)
		}},
		{"a task's own page", `{"path":"/tasks/task_4"}`, tools.ViewRecord, func(t *testing.T, s tools.Surface) {
			require.Equal(t, "task", s.OpenKind)
			require.Equal(t, "task_4", s.OpenID)
		}},
		{"a person's page", `{"path":"/people/person_1"}`, tools.ViewRecord, func(t *testing.T, s tools.Surface) {
			require.Equal(t, "person", s.OpenKind)
		}},
		{"fields of other types are left out", `{"path":"/tasks","filters":[1],"selectedIds":"task_1","open":42,"surface":"board"}`, tools.ViewTasks, func(t *testing.T, s tools.Surface) {
			require.Empty(t, s.Selected)
			require.Empty(t, s.OpenID)
		}},
	} {
		s, err := tools.ParseSurface(tc.page)
		require.Nil(t, err, "%s: %v", tc.name, err)
		require.Equal(t, tc.view, s.View, tc.name)
		tc.check(t, s)
	}

	for _, tc := range []struct{ name, page, code string }{
		{"no page context", "", tools.CodeNotFound},
		{"not an object", `["tasks"]`, tools.CodeRefused},
		{"another app, by name", `{"app":"jira","path":"/browse/PROJ-1"}`, tools.CodeRefused},
		{"another app, by address", `{"path":"https://acme.atlassian.net/browse/PROJ-1"}`, tools.CodeRefused},
		{"another app, by path", `{"path":"/apps/conn_1/items"}`, tools.CodeRefused},
		{"a page the tool does not read", `{"path":"/settings/connections"}`, tools.CodeRefused},
		{"no path or view", `{"selectedText":"Quarterly numbers"}`, tools.CodeRefused},
	} {
		_, err := tools.ParseSurface(tc.page)
		require.NotNil(t, err, tc.name)
		require.Equal(t, tc.code, err.Code, tc.name)
		require.Contains(t, err.Message, "hub_read_surface reads Hub's own views", "%s: it says what it reads", tc.name)
	}
}

// A task list on screen is read with the view's filters applied, through
// the same service call as GET …/tasks, and says which tasks are selected;
// a selected id of another space is dropped, never read. A viewer and a
// guest read what their screen shows.
func TestReadSurfaceTaskList(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		brief := f.task(t, workspace.NewTask{Title: "Draft brief"})
		call := f.task(t, workspace.NewTask{Title: "Call Mira", AssigneeID: f.editor.PersonID})
		done := f.task(t, workspace.NewTask{Title: "Send invoice", Status: "done"})
		elsewhere, err := f.svc.CreateTasks(ctx, f.outsider, f.other, "/tasks", []workspace.NewTask{{Title: "Secret plan"}})
		require.NoError(t, err)
		secret := elsewhere[0].ID

		page := fmt.Sprintf(`{"path":"/tasks?status=todo","surface":{"kind":"board","filters":{"label":"red"},"selectedIds":[%q,%q,%q]}}`, call.ID, secret, done.ID)
		for _, who := range []struct {
			actor workspace.Actor
			role  workspace.Role
		}{{f.owner, workspace.RoleOwner}, {f.viewer, workspace.RoleViewer}, {f.guest, workspace.RoleGuest}} {
			env := f.env(who.actor, who.role)
			env.PageContext = page
			res, terr := f.dispatch(t, env, tools.ReadSurfaceTool, `{}`)
			require.Nil(t, terr, "%s: %v", who.role, terr)
			data := dataOf[surfaceData](t, res)
			require.Equal(t, tools.ViewTasks, data.View.Kind)
			require.Equal(t, map[string]string{"status": "todo"}, data.View.Filters)
			require.Equal(t, []string{"filters/label: Hub's task list has no such filter"}, data.View.NotApplied)

			// What the screen shows with the same filter, read as REST reads it.
			screen, err := f.svc.ListTasks(ctx, rest(who.actor), f.acme, workspace.TaskFilter{Status: "todo"})
			require.NoError(t, err)
			var ids []string
			for _, tk := range data.Tasks {
				ids = append(ids, tk.ID)
				require.Equal(t, tk.ID == call.ID, tk.Selected, "%s: %s", who.role, tk.Title)
			}
			require.Len(t, screen.Tasks, 2)
			require.Equal(t, []string{screen.Tasks[0].ID, screen.Tasks[1].ID}, ids, "%s reads what the screen lists", who.role)
			require.Equal(t, []string{brief.ID, call.ID}, ids)
			require.Equal(t, []string{call.ID, done.ID}, data.View.SelectedIDs, "selected tasks of the space, listed or not")
			require.Equal(t, []string{"1 of the 3 selected ids name no task the person can open in this space"}, data.View.Notes)
			require.Equal(t, "The task list on screen: Found 2 tasks: “Draft brief” and “Call Mira”. 2 selected.", res.Summary)
			require.NotContains(t, tools.ModelText(res, tools.MaxResultChars), secret, "another space's id is never read back")
		}

		// Someone who cannot open the space reads nothing of it.
		env := f.env(f.outsider, workspace.RoleOwner)
		env.PageContext = page
		_, terr := f.dispatch(t, env, tools.ReadSurfaceTool, `{}`)
		require.NotNil(t, terr)
		require.NotRegexp(t, tools.IDPattern, tools.ErrorText(terr))

		// The assignee filter "me" is the person; a page of the list pages on.
		env = f.env(f.editor, workspace.RoleEditor)
		env.PageContext = `{"path":"/tasks","filters":{"assignee":"me"}}`
		res, terr := f.dispatch(t, env, tools.ReadSurfaceTool, `{}`)
		require.Nil(t, terr)
		data := dataOf[surfaceData](t, res)
		require.Len(t, data.Tasks, 1)
		require.Equal(t, call.ID, data.Tasks[0].ID)

		env.PageContext = `{"path":"/tasks"}`
		res, terr = f.dispatch(t, env, tools.ReadSurfaceTool, `{"limit":1,"offset":1}`)
		require.Nil(t, terr)
		data = dataOf[surfaceData](t, res)
		require.Equal(t, 3, data.Total)
		require.Equal(t, call.ID, data.Tasks[0].ID)
		require.Equal(t, 2, data.NextOffset)
		require.Contains(t, data.More, "offset")
	})
}

// A project's page is the project and its tasks; a project of another space
// is not found, and the error names no id.
func TestReadSurfaceProjectPage(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		launch := f.project(t, workspace.NewProject{Name: "Launch"})
		brief := f.task(t, workspace.NewTask{Title: "Draft brief", ProjectID: launch.ID})
		f.task(t, workspace.NewTask{Title: "Not in the project"})
		theirs, err := f.svc.CreateProject(ctx, f.outsider, f.other, workspace.NewProject{Name: "Secret"})
		require.NoError(t, err)

		env := f.env(f.viewer, workspace.RoleViewer)
		env.PageContext = fmt.Sprintf(`{"path":"/spaces/%s/projects/%s","selectedIds":[%q]}`, f.acme, launch.ID, brief.ID)
		res, terr := f.dispatch(t, env, tools.ReadSurfaceTool, ``)
		require.Nil(t, terr)
		data := dataOf[surfaceData](t, res)
		require.Equal(t, tools.ViewProject, data.View.Kind)
		require.NotNil(t, data.Project)
		require.Equal(t, "Launch", data.Project.Name)
		require.Len(t, data.Tasks, 1)
		require.Equal(t, brief.ID, data.Tasks[0].ID)
		require.True(t, data.Tasks[0].Selected)
		require.Equal(t, "The project “Launch” on screen: Found 1 task: “Draft brief”. 1 selected.", res.Summary)

		env.PageContext = `{"path":"/projects/` + theirs.ID + `"}`
		_, terr = f.dispatch(t, env, tools.ReadSurfaceTool, `{}`)
		require.NotNil(t, terr)
		require.Equal(t, tools.CodeNotFound, terr.Code)
		require.NotContains(t, tools.ErrorText(terr), theirs.ID)

		// A page of another space than the call's is refused.
		env.PageContext = fmt.Sprintf(`{"path":"/spaces/%s/projects/%s"}`, f.other, theirs.ID)
		_, terr = f.dispatch(t, env, tools.ReadSurfaceTool, `{}`)
		require.NotNil(t, terr)
		require.Equal(t, tools.CodeRefused, terr.Code)
	})
}

// The record panel's record is read as GET …/tasks/:id, …/projects/:id and
// …/people/:id read it; an id of another space, or of another kind than
// the page says, names nothing. part "page" reads the list under it.
func TestReadSurfaceRecordPanel(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		launch := f.project(t, workspace.NewProject{Name: "Launch"})
		brief := f.task(t, workspace.NewTask{Title: "Draft brief", ProjectID: launch.ID, DueDate: "2026-03-06"})
		elsewhere, err := f.svc.CreateTasks(ctx, f.outsider, f.other, "/tasks", []workspace.NewTask{{Title: "Secret plan"}})
		require.NoError(t, err)
		secret := elsewhere[0].ID
		env := f.env(f.guest, workspace.RoleGuest)
		read := func(page, args string) (surfaceData, tools.Result, *tools.Error) {
			env.PageContext = page
			res, terr := f.dispatch(t, env, tools.ReadSurfaceTool, args)
			if terr != nil {
				return surfaceData{}, res, terr
			}
			return dataOf[surfaceData](t, res), res, nil
		}

		data, res, terr := read(`{"path":"/tasks","open":{"kind":"task","id":"`+brief.ID+`"}}`, `{}`)
		require.Nil(t, terr)
		require.Equal(t, tools.ViewRecord, data.View.Kind)
		screen, err := f.svc.GetTask(ctx, rest(f.guest), f.acme, brief.ID)
		require.NoError(t, err)
		require.Equal(t, &tools.TaskData{ID: screen.ID, Title: screen.Title, Status: screen.Status, DueDate: screen.DueDate,
			Priority: screen.Priority, ProjectID: screen.ProjectID, Revision: screen.Revision}, data.Task)
		require.Equal(t, "Read the record open on screen: the task “Draft brief”.", res.Summary)
		require.Equal(t, []workspace.Ref{workspace.TaskRef(screen)}, res.Refs)

		data, _, terr = read(`{"path":"/tasks","open":{"kind":"task","id":"`+brief.ID+`"}}`, `{"part":"page"}`)
		require.Nil(t, terr)
		require.Equal(t, tools.ViewTasks, data.View.Kind, "the list under the panel")
		require.Len(t, data.Tasks, 1)

		data, _, terr = read(`{"openId":"`+launch.ID+`"}`, `{}`)
		require.Nil(t, terr)
		require.Equal(t, "Launch", data.Project.Name)

		data, _, terr = read(`{"open":{"kind":"member","id":"`+f.editor.PersonID+`"}}`, `{}`)
		require.Nil(t, terr)
		require.Equal(t, &tools.PersonData{ID: f.editor.PersonID, Name: "Eddie Editor", Role: "editor", Revision: data.Person.Revision}, data.Person)

		for _, page := range []string{
			`{"open":"` + secret + `"}`,                           // another space's
			`{"open":{"kind":"project","id":"` + brief.ID + `"}}`, // another kind than said
			`{"path":"/people/` + f.outsider.PersonID + `"}`,      // no one of this space
		} {
			_, _, terr = read(page, `{}`)
			require.NotNil(t, terr, page)
			require.Equal(t, tools.CodeNotFound, terr.Code, page)
			require.NotRegexp(t, tools.IDPattern, tools.ErrorText(terr), page)
		}
		_, _, terr = read(`{"openId":"`+launch.ID+`"}`, `{"part":"page"}`)
		require.NotNil(t, terr)
		require.Equal(t, "/part", terr.Path, "no page is under this panel")
	})
}

// Without a page context, on another app's page or on a page it does not
// read, the tool answers a structured error saying what it reads. It is a
// read that needs no argument.
func TestReadSurfaceRefusesWhatItDoesNotRead(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		d, ok := f.reg.Get(tools.ReadSurfaceTool)
		require.True(t, ok)
		require.False(t, d.IsWrite)
		require.JSONEq(t, `{"type":"object","additionalProperties":false,"properties":{
			"part":{"type":"string","enum":["record","page"],"description":"When a record panel is open over a page: record (the default) reads the panel's record, page the list under it."},
			"limit":{"type":"integer","minimum":1,"maximum":200,"description":"How many tasks of a list to return (default 50)."},
			"offset":{"type":"integer","minimum":0,"description":"How many of the list's tasks to skip, to page on."}}}`, string(d.Schema))

		env := f.env(f.owner, workspace.RoleOwner)
		for page, code := range map[string]string{
			``: tools.CodeNotFound,
			`{"app":"jira","path":"/browse/PROJ-1","selectedIds":["PROJ-1"]}`: tools.CodeRefused,
			`{"path":"https://mail.example.com/inbox"}`:                       tools.CodeRefused,
			`{"path":"/settings/connections"}`:                                tools.CodeRefused,
		} {
			env.PageContext = page
			_, terr := f.dispatch(t, env, tools.ReadSurfaceTool, `{}`)
			require.NotNil(t, terr, page)
			require.Equal(t, code, terr.Code, page)
			require.Contains(t, terr.Message, "a task list", page)
		}
	})
}

package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// writeCase is one write tool in the permission matrix: setup makes what the
// call needs and returns its arguments; changed tells whether it ran.
type writeCase struct {
	tool    string
	setup   func(t *testing.T, f *fixture, tag string) (args string, changed func() bool)
	comment string
	// owners: only an owner may use the tool; held: it always waits for
	// Apply, whatever the policy.
	owners, held bool
}

var writeCases = []writeCase{
	{tool: "hub_create_tasks", setup: func(t *testing.T, f *fixture, tag string) (string, func() bool) {
		return fmt.Sprintf(`{"tasks":[{"title":%q}]}`, tag), func() bool { return f.countTitled(t, tag) == 1 }
	}},
	{tool: "hub_update_tasks", setup: func(t *testing.T, f *fixture, tag string) (string, func() bool) {
		task := f.task(t, workspace.NewTask{Title: tag})
		return fmt.Sprintf(`{"tasks":[{"id":%q,"revision":1,"status":"done"}]}`, task.ID), func() bool {
			got, _ := f.getTask(t, task.ID)
			return got.Status == "done"
		}
	}},
	{tool: "hub_delete_tasks", setup: func(t *testing.T, f *fixture, tag string) (string, func() bool) {
		task := f.task(t, workspace.NewTask{Title: tag})
		return fmt.Sprintf(`{"ids":[%q]}`, task.ID), func() bool { _, ok := f.getTask(t, task.ID); return !ok }
	}},
	{tool: "hub_delete_tasks", comment: "all matching", setup: func(t *testing.T, f *fixture, tag string) (string, func() bool) {
		f.task(t, workspace.NewTask{Title: tag})
		return fmt.Sprintf(`{"all":true,"query":%q}`, tag), func() bool { return f.countTitled(t, tag) == 0 }
	}},
	{tool: "hub_create_project", setup: func(t *testing.T, f *fixture, tag string) (string, func() bool) {
		return fmt.Sprintf(`{"name":%q}`, tag), func() bool { return f.projectNamed(t, tag) != nil }
	}},
	{tool: "hub_update_project", setup: func(t *testing.T, f *fixture, tag string) (string, func() bool) {
		p := f.project(t, workspace.NewProject{Name: tag})
		return fmt.Sprintf(`{"id":%q,"revision":1,"status":"paused"}`, p.ID), func() bool { return f.projectNamed(t, tag).Status == "paused" }
	}},
	{tool: "hub_add_person", owners: true, held: true, setup: func(t *testing.T, f *fixture, tag string) (string, func() bool) {
		return fmt.Sprintf(`{"name":%q,"role":"viewer"}`, tag), func() bool { return f.personNamed(t, tag) != nil }
	}},
	{tool: "hub_update_person", owners: true, held: true, setup: func(t *testing.T, f *fixture, tag string) (string, func() bool) {
		p := f.addPerson(t, tag)
		return fmt.Sprintf(`{"id":%q,"revision":1,"role":"editor"}`, p.ID), func() bool { return f.personNamed(t, tag).Role == workspace.RoleEditor }
	}},
	{tool: "hub_remove_person", owners: true, held: true, setup: func(t *testing.T, f *fixture, tag string) (string, func() bool) {
		p := f.addPerson(t, tag)
		return fmt.Sprintf(`{"id":%q}`, p.ID), func() bool { return f.personNamed(t, tag) == nil }
	}},
}

func (f *fixture) addPerson(t *testing.T, name string) workspace.Person {
	t.Helper()
	p, err := f.svc.AddPerson(t.Context(), rest(f.owner), f.acme, workspace.NewPerson{Name: name, Role: workspace.RoleViewer})
	require.NoError(t, err)
	return p
}

func (f *fixture) personNamed(t *testing.T, name string) *workspace.Person {
	t.Helper()
	people, err := f.svc.ListPeople(t.Context(), f.owner.PersonID, f.acme)
	require.NoError(t, err)
	for _, p := range people {
		if p.Name == name {
			return &p
		}
	}
	return nil
}

// Every role × every write tool × every write policy, through Dispatch: a
// viewer is forbidden and nothing changes (so is anyone but an owner with
// an owners' tool); any other role runs the write under immediate and has
// it held, unchanged, under preview and needs-me (an always-held tool under
// every policy).
func TestWritePermissionMatrix(t *testing.T) {
	t.Parallel()
	covered := map[string]bool{}
	for _, c := range writeCases {
		covered[c.tool] = true
	}
	for _, d := range tools.Hub(nil).Granted(workspace.RoleOwner) {
		// Connected-app writes are always held whatever the policy; apps_test.go covers them,
		// settings_test.go hub_update_settings.
		if d.IsWrite && d.Area != tools.AreaApps && d.Name != tools.UpdateSettingsTool {
			require.True(t, covered[d.Name], "the matrix covers %s", d.Name)
		}
	}

	each(t, func(t *testing.T, f *fixture) {
		roles := []struct {
			role  workspace.Role
			actor workspace.Actor
		}{{workspace.RoleOwner, f.owner}, {workspace.RoleEditor, f.editor}, {workspace.RoleViewer, f.viewer}, {workspace.RoleGuest, f.guest}}
		n := 0
		for _, r := range roles {
			for _, c := range writeCases {
				for _, policy := range []string{workspace.PolicyImmediate, workspace.PolicyPreview, workspace.PolicyNeedsMe} {
					name := strings.TrimSpace(c.tool + " " + c.comment)
					name = fmt.Sprintf("%s/%s/%s", r.role, name, policy)
					t.Run(name, func(t *testing.T) {
						n++
						tag := fmt.Sprintf("Cell %03d", n) // no tag is a part of another
						args, changed := c.setup(t, f, tag)
						env := with(f.env(r.actor, r.role), policy)
						res, err := f.dispatch(t, env, c.tool, args)
						switch {
						case r.role == workspace.RoleViewer, c.owners && r.role != workspace.RoleOwner:
							require.NotNil(t, err)
							require.Equal(t, tools.CodeForbidden, err.Code)
							require.False(t, changed(), "nothing changed")
						case policy == workspace.PolicyImmediate && !c.held:
							require.Nil(t, err)
							require.False(t, res.Held)
							require.NotEmpty(t, res.Summary)
							require.True(t, changed(), "the write ran")
						default:
							require.Nil(t, err)
							require.True(t, res.Held)
							require.NotEmpty(t, res.Summary)
							require.NotEmpty(t, res.Input)
							require.False(t, changed(), "held: nothing changed")
						}
					})
				}
			}
		}
	})
}

func (f *fixture) countTitled(t *testing.T, title string) int {
	t.Helper()
	page, err := f.svc.ListTasks(t.Context(), rest(f.owner), f.acme, workspace.TaskFilter{Query: title})
	require.NoError(t, err)
	n := 0
	for _, task := range page.Tasks {
		if task.Title == title {
			n++
		}
	}
	return n
}

func (f *fixture) projectNamed(t *testing.T, name string) *workspace.Project {
	t.Helper()
	ps, err := f.svc.ListProjects(t.Context(), rest(f.owner), f.acme, workspace.ProjectFilter{Limit: workspace.MaxListLimit})
	require.NoError(t, err)
	for _, p := range ps.Projects {
		if p.Name == name {
			return &p
		}
	}
	return nil
}

package tools_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// TestToolErrorsSweepNamesNoIDs calls every Hub tool that takes ids with
// ids of nothing, of another space's records and of the wrong kind, as the
// owner and as a viewer, and holds that no error the model or the person
// reads names an id (seed 000 §4.1): the path says which field.
func TestToolErrorsSweepNamesNoIDs(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		reg := tools.Hub(nil)
		reg.Add(tools.RunPlan(reg))
		elsewhere, err := f.svc.CreateTasks(ctx, f.outsider, f.other, "", []workspace.NewTask{{Title: "Secret"}})
		require.NoError(t, err)
		other := elsewhere[0].ID
		const none = "task_aaaaaaaaaaaaaaaa"
		const project = "project_aaaaaaaaaaaaaaaa"
		const person = "person_aaaaaaaaaaaaaaaa"
		calls := []struct{ tool, args string }{
			{"hub_update_tasks", `{"tasks":[{"id":"` + none + `","revision":1,"status":"done"}]}`},
			{"hub_update_tasks", `{"tasks":[{"id":"` + other + `","revision":1,"status":"done"}]}`},
			{"hub_update_tasks", `{"tasks":[{"id":"` + project + `","revision":1,"title":"x"}]}`},
			{"hub_delete_tasks", `{"ids":["` + none + `"]}`},
			{"hub_delete_tasks", `{"ids":["` + other + `"]}`},
			{"hub_create_tasks", `{"tasks":[{"title":"x","projectId":"` + project + `"}]}`},
			{"hub_create_tasks", `{"tasks":[{"title":"x","assigneeId":"` + person + `"}]}`},
			{"hub_update_project", `{"id":"` + project + `","revision":1,"name":"x"}`},
			{"hub_update_person", `{"id":"` + person + `","revision":1,"name":"x"}`},
			{"hub_remove_person", `{"id":"` + person + `"}`},
			{"hub_add_person", `{"personId":"` + person + `"}`},
			{"hub_view_file", `{"id":"file_aaaaaaaaaaaaaaaa"}`},
			{"hub_read_skill", `{"id":"skill_aaaaaaaaaaaaaaaa"}`},
			{"hub_list_tasks", `{"projectId":"` + project + `"}`},
			{"hub_run_workflow", `{"steps":[{"id":"a","tool":"hub_update_tasks","input":{"tasks":[{"id":"` + none + `","revision":1,"status":"done"}]}},` +
				`{"id":"b","tool":"hub_delete_tasks","input":{"ids":["` + other + `"]}}]}`},
		}
		errs := 0
		for _, c := range calls {
			for _, who := range []struct {
				actor workspace.Actor
				role  workspace.Role
			}{{f.owner, workspace.RoleOwner}, {f.viewer, workspace.RoleViewer}} {
				env := f.env(who.actor, who.role)
				env.Settings = workspace.Settings{WritePolicy: workspace.PolicyImmediate}
				_, terr := reg.Dispatch(ctx, env, tools.Call{Name: c.tool, Arguments: c.args, Offered: []string{c.tool}})
				if terr == nil {
					continue
				}
				errs++
				text := tools.ErrorText(terr)
				require.NotRegexp(t, tools.IDPattern, terr.Message, "%s as %s: %s", c.tool, who.role, text)
				require.NotRegexp(t, tools.IDPattern, text, "%s as %s", c.tool, who.role)
				require.NotContains(t, terr.Message, " a editor")
				require.NotContains(t, terr.Message, " a owner")
			}
		}
		require.Greater(t, errs, len(calls), "the calls fail")
	})
}

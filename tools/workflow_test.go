package tools_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

func TestWorkflowPlansAreCheckedAtProposal(t *testing.T) {
	t.Parallel()
	reg := tools.Hub(nil)
	step := func(id, tool, input string) tools.PlanStep {
		return tools.PlanStep{ID: id, Tool: tool, Input: json.RawMessage(input)}
	}
	project := step("project", "hub_create_project", `{"name":"Launch"}`)
	cases := []struct {
		name  string
		steps []tools.PlanStep
		code  string
		path  string
	}{
		{"one step", []tools.PlanStep{project}, tools.CodeInvalidPayload, "/steps"},
		{"a read step", []tools.PlanStep{project, step("look", "hub_list_tasks", `{}`)}, tools.CodeRefused, "/steps/1/tool"},
		{"nested", []tools.PlanStep{project, step("again", "hub_run_workflow", `{}`)}, tools.CodeRefused, "/steps/1/tool"},
		{"unknown tool", []tools.PlanStep{project, step("x", "hub_launch_rocket", `{}`)}, tools.CodeUnknownTool, "/steps/1/tool"},
		{"forward ref", []tools.PlanStep{step("tasks", "hub_create_tasks", `{"tasks":[{"title":"t","projectId":{"$ref":"project.project.id"}}]}`), project},
			tools.CodeInvalidPayload, "/steps/0/input/tasks/0/projectId"},
		{"unknown ref", []tools.PlanStep{project, step("tasks", "hub_create_tasks", `{"tasks":[{"title":"t","projectId":{"$ref":"nope.id"}}]}`)},
			tools.CodeInvalidPayload, "/steps/1/input/tasks/0/projectId"},
		{"repeated id", []tools.PlanStep{project, project}, tools.CodeInvalidPayload, "/steps/1/id"},
		{"bad id", []tools.PlanStep{project, step("Bad Id", "hub_create_project", `{"name":"x"}`)}, tools.CodeInvalidPayload, "/steps/1/id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tools.CheckPlan(reg, tools.PlanInput{Steps: tc.steps})
			var te *tools.Error
			require.ErrorAs(t, err, &te)
			require.Equal(t, tc.code, te.Code, te.Message)
			require.Equal(t, tc.path, te.Path, te.Message)
		})
	}
	ok := []tools.PlanStep{project, step("tasks", "hub_create_tasks", `{"tasks":[{"title":"t","projectId":{"$ref":"project.project.id"}}]}`)}
	require.NoError(t, tools.CheckPlan(reg, tools.PlanInput{Steps: ok}))
}

func TestResolveRefsReadsEarlierResults(t *testing.T) {
	t.Parallel()
	out := map[string]json.RawMessage{"tasks": json.RawMessage(`{"tasks":[{"id":"task_1"},{"id":"task_2"}]}`)}
	got, err := tools.ResolveRefs(json.RawMessage(`{"ids":[{"$ref":"tasks.tasks.1.id"}],"keep":{"a":1}}`), out)
	require.NoError(t, err)
	require.JSONEq(t, `{"ids":["task_2"],"keep":{"a":1}}`, string(got))
	_, err = tools.ResolveRefs(json.RawMessage(`{"x":{"$ref":"tasks.tasks.9.id"}}`), out)
	require.Error(t, err)
}

// TestWorkflowStepsCarryOnlyWhatThePersonMayDo: a step whose tool the
// person may not use (their role, their settings) is refused when the
// workflow is proposed, naming the step at /steps/<i>/tool, and nothing
// is held; Apply never sees it.
func TestWorkflowStepsCarryOnlyWhatThePersonMayDo(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		reg := tools.Hub(nil)
		reg.Add(tools.RunPlan(reg))
		offered := append(append([]string{}, offerAll...), tools.PlanTool)
		plan := func(second string) string {
			return `{"steps":[{"id":"project","tool":"hub_create_project","input":{"name":"Launch"}},` + second + `]}`
		}
		post := plan(`{"id":"tell","tool":"apps_post_update","input":{"connectionId":"conn_x","text":"Launch is on"}}`)
		tasks := plan(`{"id":"tasks","tool":"hub_create_tasks","input":{"tasks":[{"title":"t","projectId":{"$ref":"project.project.id"}}]}}`)
		appsOn := workspace.Settings{WritePolicy: workspace.PolicyImmediate, ConnectedAppWrites: true}
		cases := []struct {
			name       string
			actor      workspace.Actor
			role       workspace.Role
			settings   workspace.Settings
			args       string
			code, path string
			mentions   string
		}{
			{"a guest's app write", f.guest, workspace.RoleGuest, appsOn, post, tools.CodeForbidden, "/steps/1/tool", `step "tell" (apps_post_update): a guest cannot use`},
			{"app writes switched off", f.owner, workspace.RoleOwner, workspace.Settings{WritePolicy: workspace.PolicyImmediate}, post, tools.CodeRefused, "/steps/1/tool", "switched off"},
			{"an area switched off", f.owner, workspace.RoleOwner, workspace.Settings{WritePolicy: workspace.PolicyImmediate, AllowedWriteAreas: []string{"tasks"}}, tasks, tools.CodeRefused, "/steps/0/tool", `step "project" (hub_create_project): writes in projects are switched off`},
			{"a viewer", f.viewer, workspace.RoleViewer, appsOn, tasks, tools.CodeForbidden, "/steps/0/tool", "a viewer may not change records"},
		}
		for _, tc := range cases {
			env := f.env(tc.actor, tc.role)
			env.Settings = tc.settings
			res, terr := reg.Dispatch(t.Context(), env, tools.Call{Name: tools.PlanTool, Arguments: tc.args, Offered: offered})
			require.NotNil(t, terr, tc.name)
			require.False(t, res.Held, tc.name)
			require.Equal(t, tc.code, terr.Code, "%s: %s", tc.name, terr.Message)
			require.Equal(t, tc.path, terr.Path, "%s: %s", tc.name, terr.Message)
			require.Contains(t, terr.Message, tc.mentions, tc.name)
		}
		// Allowed, the same plans are held for Apply.
		for _, args := range []string{post, tasks} {
			env := f.env(f.owner, workspace.RoleOwner)
			env.Settings = appsOn
			res, terr := reg.Dispatch(t.Context(), env, tools.Call{Name: tools.PlanTool, Arguments: args, Offered: offered})
			require.Nil(t, terr, "%v", terr)
			require.True(t, res.Held)
		}
		// The person's allowed areas apply to the steps: a plan within them is
		// held, and the workflow tool is offered (its own area is no setting).
		env := f.env(f.owner, workspace.RoleOwner)
		env.Settings = workspace.Settings{WritePolicy: workspace.PolicyImmediate, AllowedWriteAreas: []string{"tasks", "projects"}}
		res, terr := reg.Dispatch(t.Context(), env, tools.Call{Name: tools.PlanTool, Arguments: tasks, Offered: offered})
		require.Nil(t, terr, "%v", terr)
		require.True(t, res.Held)
		narrow := workspace.Settings{AllowedWriteAreas: []string{"tasks"}}
		require.True(t, slices.ContainsFunc(reg.Offerable(workspace.RoleOwner, narrow), func(d *tools.Definition) bool { return d.Name == tools.PlanTool }))
		require.False(t, slices.ContainsFunc(reg.Offerable(workspace.RoleViewer, narrow), func(d *tools.Definition) bool { return d.Name == tools.PlanTool }))

		env = f.env(f.guest, workspace.RoleGuest)
		env.Settings = appsOn
		res, terr = reg.Dispatch(t.Context(), env, tools.Call{Name: tools.PlanTool, Arguments: tasks, Offered: offered})
		require.Nil(t, terr, "a guest's plan of Hub writes: %v", terr)
		require.True(t, res.Held)
	})
}

// A plan's preview names records by title and each $ref by the step it
// comes from, as a direct call's preview does: never an id or a revision.
func TestWorkflowPreviewNamesNoIDs(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		reg := tools.Hub(nil)
		reg.Add(tools.RunPlan(reg))
		task, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "", []workspace.NewTask{{Title: "Made by REST"}})
		require.NoError(t, err)
		plan := tools.PlanInput{Steps: []tools.PlanStep{
			{ID: "project", Tool: "hub_create_project", Input: json.RawMessage(`{"name":"Launch"}`)},
			{ID: "tasks", Tool: "hub_update_tasks", Input: json.RawMessage(`{"tasks":[{"id":"` + task[0].ID + `","revision":1,"status":"done"}]}`)},
			{ID: "more", Tool: "hub_create_tasks", Input: json.RawMessage(`{"tasks":[{"title":"Write the announcement","projectId":{"$ref":"project.project.id"}}]}`)},
			{ID: "last", Tool: "hub_update_tasks", Input: json.RawMessage(`{"tasks":[{"id":{"$ref":"more.tasks.0.id"},"revision":1,"projectId":"project_aaaaaaaaaaaaaaaa"}]}`)},
		}}
		d, ok := reg.Get(tools.PlanTool)
		require.True(t, ok)
		raw, err := json.Marshal(plan)
		require.NoError(t, err)
		preview, err := d.Preview(ctx, f.env(f.owner, workspace.RoleOwner), raw)
		require.NoError(t, err)
		require.Contains(t, preview, "2. Update 1 task: “Made by REST”", "a step without $ref previews as a direct call")
		require.Contains(t, preview, "3. Create tasks: “Write the announcement” (project the project made in step 1)")
		require.Contains(t, preview, "4. Update tasks: task 1 made in step 3, project a project that was not found")
		require.NotRegexp(t, tools.IDPattern, preview)
		require.NotContains(t, preview, "$ref")
		require.NotContains(t, preview, "revision")
	})
}

// Tool errors name no ids: not-found errors say which field by their
// path, and messages passed on from elsewhere have their ids replaced.
func TestToolErrorsNameNoIDs(t *testing.T) {
	t.Parallel()
	e := tools.AsError(&workspace.NotFoundError{Kind: "task", ID: "task_abcdefghijklmnop", Path: "/tasks/0/id"})
	require.Equal(t, "no task with the id given in this space", e.Message)
	require.Equal(t, "/tasks/0/id", e.Path)
	require.Equal(t, `you have no skill with id the skill: not found`,
		tools.AsError(fmt.Errorf(`you have no skill with id "skill_abcdefghijklmnop": %w`, workspace.ErrNotFound)).Message)
	text := tools.ErrorText(&tools.Error{Code: tools.CodeRefused, Message: "space_abcdefghijklmnop is closed",
		Issues: []tools.Issue{{Path: "/x", Message: "“task_abcdefghijklmnop” is gone"}}})
	require.NotRegexp(t, tools.IDPattern, text)
	require.Contains(t, text, "the space is closed")
	require.Contains(t, text, "the task is gone")
	require.Equal(t, "keeps snake_case words", tools.WithoutIDs("keeps snake_case words"))
}

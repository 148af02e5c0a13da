package tools_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
)

func TestWorkflowPlansAreCheckedAtProposal(t *testing.T) {
	t.Parallel()
	reg := tools.Hub(nil)
	step := func(id, tool, input string) tools.WorkflowStep {
		return tools.WorkflowStep{ID: id, Tool: tool, Input: json.RawMessage(input)}
	}
	project := step("project", "hub_create_project", `{"name":"Launch"}`)
	cases := []struct {
		name  string
		steps []tools.WorkflowStep
		code  string
		path  string
	}{
		{"one step", []tools.WorkflowStep{project}, tools.CodeInvalidPayload, "/steps"},
		{"a read step", []tools.WorkflowStep{project, step("look", "hub_list_tasks", `{}`)}, tools.CodeRefused, "/steps/1/tool"},
		{"nested", []tools.WorkflowStep{project, step("again", "hub_run_workflow", `{}`)}, tools.CodeRefused, "/steps/1/tool"},
		{"unknown tool", []tools.WorkflowStep{project, step("x", "hub_launch_rocket", `{}`)}, tools.CodeUnknownTool, "/steps/1/tool"},
		{"forward ref", []tools.WorkflowStep{step("tasks", "hub_create_tasks", `{"tasks":[{"title":"t","projectId":{"$ref":"project.project.id"}}]}`), project},
			tools.CodeInvalidPayload, "/steps/0/input/tasks/0/projectId"},
		{"unknown ref", []tools.WorkflowStep{project, step("tasks", "hub_create_tasks", `{"tasks":[{"title":"t","projectId":{"$ref":"nope.id"}}]}`)},
			tools.CodeInvalidPayload, "/steps/1/input/tasks/0/projectId"},
		{"repeated id", []tools.WorkflowStep{project, project}, tools.CodeInvalidPayload, "/steps/1/id"},
		{"bad id", []tools.WorkflowStep{project, step("Bad Id", "hub_create_project", `{"name":"x"}`)}, tools.CodeInvalidPayload, "/steps/1/id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tools.CheckPlan(reg, tools.RunWorkflowInput{Steps: tc.steps})
			var te *tools.Error
			require.ErrorAs(t, err, &te)
			require.Equal(t, tc.code, te.Code, te.Message)
			require.Equal(t, tc.path, te.Path, te.Message)
		})
	}
	ok := []tools.WorkflowStep{project, step("tasks", "hub_create_tasks", `{"tasks":[{"title":"t","projectId":{"$ref":"project.project.id"}}]}`)}
	require.NoError(t, tools.CheckPlan(reg, tools.RunWorkflowInput{Steps: ok}))
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

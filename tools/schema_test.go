package tools_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// Each workspace tool requires only what a call cannot do without; every
// filter, field to change, revision and clearable value stays optional.
func TestWorkspaceToolSchemas(t *testing.T) {
	t.Parallel()
	reg := tools.Hub(nil)
	type object struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	schemaOf := func(name string) object {
		d, ok := reg.Get(name)
		require.True(t, ok, name)
		var o object
		require.NoError(t, json.Unmarshal(d.Schema, &o))
		return o
	}
	itemsOf := func(o object, field string) object {
		var arr struct {
			Items object `json:"items"`
		}
		require.NoError(t, json.Unmarshal(o.Properties[field], &arr))
		return arr.Items
	}

	update := schemaOf("hub_update_tasks")
	require.Equal(t, []string{"tasks"}, update.Required)
	require.Equal(t, []string{"id"}, itemsOf(update, "tasks").Required, "an update needs only the task's id")
	for _, name := range []string{"hub_delete_tasks", "hub_list_projects", "hub_list_people"} {
		require.Empty(t, schemaOf(name).Required, "%s: every field is optional", name)
	}
	require.Equal(t, []string{"name"}, schemaOf("hub_create_project").Required)
	require.Equal(t, []string{"id"}, schemaOf("hub_update_project").Required)

	// A clearable field takes a string or null.
	var due map[string]any
	require.NoError(t, json.Unmarshal(itemsOf(update, "tasks").Properties["dueDate"], &due))
	require.Equal(t, []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}, due["anyOf"])
	require.Contains(t, due["description"], "null")

	// Every description says what the tool does, and a tool taking ids
	// names the tool that finds them.
	for _, d := range reg.Granted(workspace.RoleOwner) {
		require.NotEmpty(t, d.Description, d.Name)
		require.LessOrEqual(t, len(d.Description), 500, "%s: a description is short", d.Name)
	}
	for name, finder := range map[string]string{
		"hub_update_tasks": "hub_list_tasks", "hub_delete_tasks": "hub_list_tasks",
		"hub_update_project": "hub_list_projects", "hub_list_projects": "hub_update_project",
		"hub_list_people": "assigneeId",
	} {
		d, _ := reg.Get(name)
		require.Contains(t, d.Description, finder, name)
	}
	var ids map[string]any
	require.NoError(t, json.Unmarshal(schemaOf("hub_delete_tasks").Properties["ids"], &ids))
	require.Contains(t, ids["description"], "complete list", "a list says it is the whole set")

	for _, tc := range []struct {
		name string
		risk tools.Risk
		area string
	}{
		{"hub_update_tasks", tools.RiskLow, "tasks"},
		{"hub_delete_tasks", tools.RiskMedium, "tasks"},
		{"hub_create_project", tools.RiskLow, "projects"},
		{"hub_update_project", tools.RiskLow, "projects"},
	} {
		d, _ := reg.Get(tc.name)
		require.True(t, d.IsWrite, tc.name)
		require.True(t, d.Undoable, tc.name)
		require.Equal(t, tc.risk, d.Risk, tc.name)
		require.Equal(t, tc.area, d.Area, tc.name)
	}
	d, _ := reg.Get("hub_list_people")
	require.False(t, d.IsWrite)
	require.Equal(t, "people", d.Area)
}

// A call with only the required fields passes the schema (and stops, for a
// viewer, at access, not at validation).
func TestWorkspaceToolsMinimalCalls(t *testing.T) {
	t.Parallel()
	reg := tools.Hub(nil)
	for name, args := range map[string]string{
		"hub_update_tasks":   `{"tasks":[{"id":"task_x","status":"done"}]}`,
		"hub_delete_tasks":   `{"ids":["task_x"]}`,
		"hub_create_project": `{"name":"Launch"}`,
		"hub_update_project": `{"id":"proj_x","name":"Relaunch"}`,
	} {
		_, err := reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleViewer}, tools.Call{Name: name, Arguments: args, Offered: offerAll})
		require.NotNil(t, err, name)
		require.Equal(t, tools.CodeForbidden, err.Code, name)
	}
}

package tools_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// Optional fields stay optional: only what a call cannot do without is
// required (a task's title, the list of tasks), so the model is never
// pushed to invent values.
func TestSchemasKeepOptionalFieldsOptional(t *testing.T) {
	t.Parallel()
	reg := tools.Hub(nil)
	for _, d := range reg.Granted(workspace.RoleOwner) {
		t.Run(d.Name, func(t *testing.T) {
			var schema map[string]any
			require.NoError(t, json.Unmarshal(d.Schema, &schema))
			require.Equal(t, "object", schema["type"])
			require.NotContains(t, schema, "$schema")
			require.NotContains(t, schema, "$ref", "schemas are inline: providers do not all resolve references")
			walkObjects(schema, "", func(path string, obj map[string]any) {
				require.Equal(t, false, obj["additionalProperties"], "%s%s refuses unknown fields", d.Name, path)
				required, _ := obj["required"].([]any)
				for _, r := range required {
					require.Contains(t, []any{"title", "tasks", "id", "name", "connectionId", "text"}, r, "%s%s requires %v", d.Name, path, r)
				}
			})
		})
	}

	create, ok := reg.Get("hub_create_tasks")
	require.True(t, ok)
	var schema struct {
		Required   []string `json:"required"`
		Properties struct {
			Tasks struct {
				Items struct {
					Required   []string       `json:"required"`
					Properties map[string]any `json:"properties"`
				} `json:"items"`
			} `json:"tasks"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(create.Schema, &schema))
	require.Equal(t, []string{"tasks"}, schema.Required)
	require.Equal(t, []string{"title"}, schema.Properties.Tasks.Items.Required)
	var fields []string
	for k := range schema.Properties.Tasks.Items.Properties {
		fields = append(fields, k)
	}
	slices.Sort(fields)
	require.Equal(t, []string{"assigneeId", "dueDate", "priority", "projectId", "status", "title"}, fields)

	list, ok := reg.Get("hub_list_tasks")
	require.True(t, ok)
	var listSchema map[string]any
	require.NoError(t, json.Unmarshal(list.Schema, &listSchema))
	require.NotContains(t, listSchema, "required", "every filter is optional")

	// A call with only the required fields passes the schema.
	_, err := reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleViewer}, tools.Call{Name: "hub_create_tasks",
		Arguments: `{"tasks":[{"title":"only a title"}]}`, Offered: []string{"hub_create_tasks"}})
	require.NotNil(t, err)
	require.Equal(t, tools.CodeForbidden, err.Code, "past the schema, stopped by access")
}

func walkObjects(node any, path string, fn func(path string, obj map[string]any)) {
	switch n := node.(type) {
	case map[string]any:
		if n["type"] == "object" {
			fn(path, n)
		}
		if props, ok := n["properties"].(map[string]any); ok {
			for k, v := range props {
				walkObjects(v, path+"/"+k, fn)
			}
		}
		if items, ok := n["items"]; ok {
			walkObjects(items, path+"/items", fn)
		}
	}
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	reg := tools.Hub(nil)
	names := func(ds []*tools.Definition) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Name)
		}
		return out
	}
	all := []string{"hub_list_tasks", "hub_create_tasks", "hub_update_tasks", "hub_delete_tasks",
		"hub_list_projects", "hub_create_project", "hub_update_project", "hub_list_people",
		"hub_view_file", "hub_list_connections", "apps_post_update", "hub_read_skill", "hub_read_surface", "hub_update_settings"}
	owners := slices.Concat(all[:8], []string{"hub_add_person", "hub_update_person", "hub_remove_person"}, all[8:])
	require.Equal(t, owners, names(reg.Granted(workspace.RoleOwner)), "registration order; the people writes only to owners")
	require.Equal(t, all, names(reg.Granted(workspace.RoleEditor)))
	require.Equal(t, all, names(reg.Granted(workspace.RoleGuest)))
	require.Equal(t, []string{"hub_list_tasks", "hub_list_projects", "hub_list_people", "hub_view_file", "hub_list_connections", "hub_read_skill", "hub_read_surface"}, names(reg.Granted(workspace.RoleViewer)), "a viewer is offered no write tool")
	require.Equal(t, append(all[:len(all)-5:len(all)-5], "hub_read_skill", "hub_read_surface", "hub_update_settings"), names(reg.Offerable(workspace.RoleGuest, workspace.Settings{ConnectedAppWrites: true})), "a guest is offered no connected-app tool")
	require.Equal(t, append(owners[:len(owners)-4:len(owners)-4], "hub_read_skill", "hub_read_surface", "hub_update_settings"), names(reg.Offerable(workspace.RoleOwner, workspace.Settings{})), "connected-app writes are off by default")
	require.Contains(t, names(reg.Offerable(workspace.RoleOwner, workspace.Settings{AllowedWriteAreas: []string{"tasks"}})), "hub_update_settings", "no write area names a person's own settings")
	require.Equal(t, owners, names(reg.Offerable(workspace.RoleOwner, workspace.Settings{ConnectedAppWrites: true})))

	d, ok := reg.Get("hub_create_tasks")
	require.True(t, ok)
	require.True(t, d.IsWrite)
	require.Equal(t, tools.RiskLow, d.Risk)
	require.True(t, d.Undoable)
	require.Equal(t, "tasks", d.Area)
	require.NotEmpty(t, d.Description)
	d, ok = reg.Get("hub_list_tasks")
	require.True(t, ok)
	require.False(t, d.IsWrite)
	require.Equal(t, tools.RiskNone, d.Risk, "a read's default risk")
	_, ok = reg.Get("nope")
	require.False(t, ok)

	require.Panics(t, func() { reg.Add(tools.ListTasks) }, "a name used twice")

	p := &probe{}
	w := p.definition("w", true)
	require.Equal(t, tools.RiskLow, w.Risk, "a write's default risk")
}

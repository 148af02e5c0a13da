package assistant

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/playbooks"
	"hub/tools"
	"hub/workspace"
)

// metaRegistry is the Hub registry with the meta tools registered into it,
// as the composition root does.
func metaRegistry(t *testing.T, extra ...*tools.Definition) (*tools.Registry, []playbooks.Playbook) {
	t.Helper()
	all := shippedPlaybooks(t)
	reg := tools.Hub(nil)
	for _, d := range extra {
		reg.Add(d)
	}
	for _, d := range MetaTools(all, reg) {
		reg.Add(d)
	}
	return reg, all
}

func call(t *testing.T, reg *tools.Registry, role workspace.Role, name, args string) (tools.Result, *tools.Error) {
	t.Helper()
	env := tools.Env{Role: role, Settings: workspace.Settings{ConnectedAppWrites: true}, SpaceID: "s1"}
	return reg.Dispatch(context.Background(), env, tools.Call{Name: name, Arguments: args, Offered: []string{name}})
}

func TestHowToReturnsTheRecipeAndAddsItsTools(t *testing.T) {
	reg, all := metaRegistry(t)
	res, err := call(t, reg, workspace.RoleOwner, HowToTool, `{"name":"Projects"}`)
	require.Nil(t, err)
	projects, _ := playbooks.Named(all, "projects")
	data := res.Data.(HowToData)
	require.Equal(t, projects.Body, data.Recipe)
	require.Equal(t, projects.Tools, data.AddTools)
	require.Equal(t, projects.Tools, AddedTools(res.Data))
	require.Equal(t, "Read the Projects playbook.", res.Summary)

	viewer, err := call(t, reg, workspace.RoleViewer, HowToTool, `{"name":"projects"}`)
	require.Nil(t, err)
	require.Equal(t, []string{"hub_list_projects", "hub_list_tasks"}, AddedTools(viewer.Data), "only what the person may be offered")
}

func TestHowToMapReturnsTheMap(t *testing.T) {
	reg, all := metaRegistry(t)
	res, err := call(t, reg, workspace.RoleOwner, HowToTool, `{"name":"map"}`)
	require.Nil(t, err)
	m, _ := playbooks.Named(all, playbooks.MapName)
	require.Equal(t, m.Body, res.Data.(HowToData).Recipe)
	require.Empty(t, AddedTools(res.Data))
	text := tools.ModelText(res, tools.MaxResultChars)
	require.Contains(t, text, `"addTools":[]`, "an empty list, not null")
}

func TestHowToRefusesUnknownAndUnusablePlaybooks(t *testing.T) {
	reg, _ := metaRegistry(t)
	_, err := call(t, reg, workspace.RoleOwner, HowToTool, `{"name":"boards"}`)
	require.NotNil(t, err)
	require.Equal(t, tools.CodeNotFound, err.Code)
	require.Equal(t, "/name", err.Path)
	require.Contains(t, err.Message, "apps, map, people, projects, tasks")

	_, err = call(t, reg, workspace.RoleOwner, HowToTool, `{"name":"workflows"}`)
	require.NotNil(t, err, "workflows needs hub_run_workflow, which this registry lacks")
	d, _ := reg.Get(HowToTool)
	require.NotContains(t, d.Description, "workflows")
	require.Contains(t, d.Description, "- tasks: ")

	_, err = call(t, reg, workspace.RoleOwner, HowToTool, `{}`)
	require.NotNil(t, err)
	require.Equal(t, tools.CodeInvalidPayload, err.Code)
}

func TestHowToOffersWorkflowsOnceTheToolExists(t *testing.T) {
	reg, _ := metaRegistry(t, stub("hub_run_workflow", "Propose ordered write steps under one Apply.", true))
	d, _ := reg.Get(HowToTool)
	require.Contains(t, d.Description, "- workflows: ")
	res, err := call(t, reg, workspace.RoleOwner, HowToTool, `{"name":"workflows"}`)
	require.Nil(t, err)
	require.Contains(t, AddedTools(res.Data), "hub_run_workflow")
}

func TestFindToolsSearchesWhatThePersonIsGranted(t *testing.T) {
	reg, _ := metaRegistry(t)
	for _, d := range SyntheticTools(1500) {
		reg.Add(d)
	}
	res, err := call(t, reg, workspace.RoleOwner, FindToolsTool, `{"query":"export figma comments"}`)
	require.Nil(t, err)
	data := res.Data.(FindToolsData)
	require.NotEmpty(t, data.Tools)
	require.LessOrEqual(t, len(data.Tools), 8)
	require.Equal(t, "figma_export_comment", data.Tools[0].Name)
	require.Equal(t, "Export Figma comments as CSV or JSON with their text, file and position.", data.Tools[0].Description)
	require.Equal(t, AddedTools(res.Data), data.AddTools)
	require.True(t, strings.HasPrefix(res.Summary, "Found 8 tools: figma_export_comment"), res.Summary)

	viewer, err := call(t, reg, workspace.RoleViewer, FindToolsTool, `{"query":"delete tasks"}`)
	require.Nil(t, err)
	for _, name := range AddedTools(viewer.Data) {
		d, _ := reg.Get(name)
		require.False(t, d.IsWrite, "a viewer is never handed %s", name)
	}
	require.NotContains(t, AddedTools(viewer.Data), FindToolsTool)

	none, err := call(t, reg, workspace.RoleOwner, FindToolsTool, `{"query":"teleport"}`)
	require.Nil(t, err)
	require.Equal(t, "No tool matches “teleport”; nothing was added.", none.Summary)
	require.Empty(t, AddedTools(none.Data))
	require.LessOrEqual(t, len(tools.ModelText(res, tools.MaxResultChars)), tools.MaxResultChars)
}

func TestAddedToolsReadsEveryShape(t *testing.T) {
	want := []string{"a", "b"}
	require.Equal(t, want, AddedTools(HowToData{AddTools: want}))
	require.Equal(t, want, AddedTools(&FindToolsData{AddTools: want}))
	require.Equal(t, want, AddedTools(map[string]any{AddToolsKey: []any{"a", "b"}}))
	require.Equal(t, want, AddedTools(json.RawMessage(`{"addTools":["a","b"],"tools":[]}`)))
	require.Equal(t, want, AddedTools(`{"addTools":["a","b"]}`))
	require.Nil(t, AddedTools(nil))
	require.Nil(t, AddedTools(map[string]any{"tasks": []string{"x"}}))
	require.Nil(t, AddedTools("not json"))
	require.Nil(t, AddedTools(map[string]any{AddToolsKey: "a"}))
}

func TestEveryPlaybookToolExists(t *testing.T) {
	reg, all := metaRegistry(t)
	for _, p := range all {
		for _, name := range p.Tools {
			if _, ok := reg.Get(name); ok {
				continue
			}
			require.Contains(t, p.Requires, name, "%s names %s, which is neither registered nor required", p.Name, name)
		}
	}
	for _, name := range playbooks.SimpleTodoTools {
		_, ok := reg.Get(name)
		require.True(t, ok, name)
	}
	for _, name := range reservedTools {
		if name == tools.WebSearchTool || name == tools.ReadWebPageTool {
			continue // registered only with a search provider
		}
		_, ok := reg.Get(name)
		require.True(t, ok, name)
	}
}

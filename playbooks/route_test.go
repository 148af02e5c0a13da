package playbooks

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// shipped loads the real playbooks: routing is tested on what ships.
func shipped(t *testing.T) []Playbook {
	t.Helper()
	all, err := All()
	require.NoError(t, err)
	return all
}

func guideNames(r Routed) []string {
	var out []string
	for _, g := range r.Guides {
		out = append(out, g.Name)
	}
	return out
}

// withWorkflow says every tool is available, hub_run_workflow included.
func withWorkflow(string) bool { return true }

// withoutWorkflow is today's build: no hub_run_workflow.
func withoutWorkflow(tool string) bool { return tool != "hub_run_workflow" }

func TestRouteTable(t *testing.T) {
	all := shipped(t)
	cases := []struct {
		name     string
		in       RouteInput
		guides   []string
		simple   bool
		hasTools []string
	}{
		{name: "a task word loads tasks", in: RouteInput{Message: "show me the overdue tasks"},
			guides: []string{"tasks"}, hasTools: []string{"hub_list_tasks", "hub_update_tasks"}},
		{name: "a project word loads projects", in: RouteInput{Message: "rename the Website project"},
			guides: []string{"projects"}, hasTools: []string{"hub_update_project"}},
		{name: "who loads people", in: RouteInput{Message: "who is in this space?"}, guides: []string{"people"}},
		{name: "nothing to go on loads nothing", in: RouteInput{Message: "hello there"}},
		{name: "a path alone loads nothing", in: RouteInput{Message: "hello there", Path: "/spaces/s1/projects/p1"}},
		{name: "a mention kind loads its playbook", in: RouteInput{Message: "what about this one", MentionKinds: []string{"project"}},
			guides: []string{"projects"}},
		{name: "two words outrank one", in: RouteInput{Message: "which overdue tasks belong to the Website project"},
			guides: []string{"tasks", "projects"}},
		{name: "a mention adds to a word", in: RouteInput{Message: "assign the onboarding project's tasks", MentionKinds: []string{"person"}},
			guides: []string{"tasks", "people"}},
		{name: "the path breaks a tie", in: RouteInput{Message: "the project's tasks", Path: "/projects/p1"},
			guides: []string{"projects", "tasks"}},
		{name: "without the path the tie keeps name order", in: RouteInput{Message: "the project's tasks"},
			guides: []string{"projects", "tasks"}},
		{name: "the path breaks the tie the other way", in: RouteInput{Message: "the project's tasks", Path: "/spaces/s1/tasks"},
			guides: []string{"tasks", "projects"}},
		{name: "at most two by score", in: RouteInput{Message: "who owns the overdue tasks in the Website project?", MentionKinds: []string{"person"}},
			guides: []string{"people", "tasks"}},
		{name: "a connected app loads apps as a third", in: RouteInput{Message: "list the overdue tasks of the Website project for Jira", AppNames: []string{"Jira & Confluence"}},
			guides: []string{"tasks", "projects", "apps"}},
		{name: "a part of a combined name counts", in: RouteInput{Message: "send this to confluence", AppNames: []string{"Jira & Confluence"}},
			guides: []string{"apps"}},
		{name: "an everyday name counts capitalised", in: RouteInput{Message: "tell everyone in Slack", AppNames: []string{"Slack"}},
			guides: []string{"people", "apps"}},
		{name: "an everyday name in lower case does not", in: RouteInput{Message: "cut me some slack on the deadline", AppNames: []string{"Slack"}},
			guides: []string{"tasks"}},
		{name: "an everyday name opening a sentence does not", in: RouteInput{Message: "Close the deadline task", AppNames: []string{"Close"}},
			guides: []string{"tasks"}},
		{name: "a two-word name counts in any case", in: RouteInput{Message: "let the ops channel know", AppNames: []string{"Ops channel"}},
			guides: []string{"apps"}},
		{name: "an app word loads apps by score", in: RouteInput{Message: "post an update to the team channel"},
			guides: []string{"apps"}, hasTools: []string{"apps_post_update", "hub_list_connections"}},
		{name: "workflows route when the tool exists", in: RouteInput{Message: "create the Launch project and then add tasks to it", Available: withWorkflow},
			guides: []string{"workflows", "projects"}},
		{name: "a phrase outranks single words", in: RouteInput{Message: "set up the Hiring project, then add tasks for it", Available: withWorkflow},
			guides: []string{"workflows", "projects"}},
		{name: "the same without the workflow tool", in: RouteInput{Message: "create the Launch project and then add tasks to it", Available: withoutWorkflow},
			guides: []string{"projects", "tasks"}},
		{name: "workflows words alone", in: RouteInput{Message: "do these steps in order", Available: withWorkflow},
			guides: []string{"workflows"}, hasTools: []string{"hub_run_workflow"}},
		{name: "workflows never route without their tool", in: RouteInput{Message: "do these steps in order", Available: withoutWorkflow}},
		{name: "simple todo", in: RouteInput{Message: "remind me to renew the domain on Friday"}, simple: true},
		{name: "simple todo: add a task", in: RouteInput{Message: "Add a task to call the accountant tomorrow"}, simple: true},
		{name: "simple todo: new to-do", in: RouteInput{Message: "new to-do: book the venue"}, simple: true},
		{name: "not simple: a question", in: RouteInput{Message: "remind me to call Mira, ok?"}, guides: []string{"tasks"}},
		{name: "not simple: a second request", in: RouteInput{Message: "remind me to call Mira and assign it to Sam"}, guides: []string{"tasks"}},
		{name: "not simple: then", in: RouteInput{Message: "add a task to draft the brief, then email it"}, guides: []string{"tasks", "workflows"}},
		{name: "not simple: two sentences", in: RouteInput{Message: "remind me to call Mira. Also the dentist"}, guides: []string{"tasks"}},
		{name: "not simple: a mention", in: RouteInput{Message: "remind me to call her", MentionKinds: []string{"person"}}, guides: []string{"tasks", "people"}},
		{name: "not simple: another playbook's word", in: RouteInput{Message: "add a task to the Website project"}, guides: []string{"projects", "tasks"}},
		{name: "not simple: a connected app", in: RouteInput{Message: "remind me to check Jira", AppNames: []string{"Jira"}}, guides: []string{"tasks", "apps"}},
		{name: "not simple: not how a todo opens", in: RouteInput{Message: "I need a task for the review"}, guides: []string{"tasks"}},
		{name: "not simple: a tool is not available", in: RouteInput{Message: "remind me to call Mira", Available: func(t string) bool { return t != "hub_create_tasks" }},
			guides: []string{"tasks"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Route(all, tc.in)
			require.Equal(t, tc.simple, r.Simple)
			require.Equal(t, tc.guides, guideNames(r))
			for _, tool := range tc.hasTools {
				require.Contains(t, r.Tools, tool)
			}
			if tc.simple {
				require.Equal(t, SimpleTodoTools, r.Tools, "exactly five tools")
				require.Len(t, r.Tools, 5)
				require.Equal(t, SimpleTodoRecipe, r.Recipe)
				require.NotContains(t, r.Recipe, "\n", "a one-line recipe")
			} else {
				require.Empty(t, r.Recipe)
			}
		})
	}
}

func TestRouteToolsAreTheGuidesAvailableToolsOnce(t *testing.T) {
	all := shipped(t)
	r := Route(all, RouteInput{Message: "which overdue tasks belong to the Website project",
		Available: func(tool string) bool { return tool != "hub_delete_tasks" }})
	require.Equal(t, []string{"tasks", "projects"}, guideNames(r))
	require.Equal(t, []string{
		"hub_list_tasks", "hub_create_tasks", "hub_update_tasks", "hub_list_people", "hub_list_projects",
		"hub_create_project", "hub_update_project",
	}, r.Tools, "guide order, each once, unavailable left out")
}

func TestMapIsNeverPreloaded(t *testing.T) {
	all := shipped(t)
	r := Route(all, RouteInput{Message: "show me the map of hub"})
	require.NotContains(t, guideNames(r), MapName)
}

func TestUsableAndNamed(t *testing.T) {
	all := shipped(t)
	_, ok := Named(Usable(all, withoutWorkflow), "workflows")
	require.False(t, ok, "a playbook whose requires are missing is not usable")
	p, ok := Named(Usable(all, withWorkflow), " Workflows ")
	require.True(t, ok)
	require.Equal(t, []string{"hub_run_workflow"}, p.Requires)
	require.Contains(t, Index(all), "- tasks: adding, finding")
}

func TestAppNameParts(t *testing.T) {
	require.Equal(t, [][]string{{"jira", "confluence"}, {"jira"}, {"confluence"}}, nameParts("Jira & Confluence"))
	require.Equal(t, [][]string{{"google", "drive", "and", "docs"}, {"google", "drive"}, {"docs"}}, nameParts("Google Drive and Docs"))
	require.Empty(t, nameParts("X"), "one letter is too short to find in a message")
	require.True(t, namesApp("ping Sales Hub about it", []string{"Sales Hub"}))
	require.False(t, namesApp("open the hub", []string{"Hub"}), "an everyday word in lower case")
	require.True(t, namesApp("post it to Hub please", []string{"Hub"}))
	require.False(t, namesApp("", []string{"Slack"}))
}

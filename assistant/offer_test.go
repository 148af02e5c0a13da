package assistant

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/playbooks"
	"hub/tools"
	"hub/workspace"
)

func shippedPlaybooks(t testing.TB) []playbooks.Playbook {
	t.Helper()
	all, err := playbooks.All()
	require.NoError(t, err)
	return all
}

// stub is a registered-looking tool with only what ranking reads.
func stub(name, description string, write bool) *tools.Definition {
	return &tools.Definition{Spec: tools.Spec{Name: name, Area: "other", Description: description, IsWrite: write}}
}

// rankerFunc adapts a function to Ranker.
type rankerFunc func(query string, candidates []*tools.Definition) ([]string, error)

func (f rankerFunc) Rank(q string, c []*tools.Definition) ([]string, error) { return f(q, c) }

// owner is an offer input for an owner with every write allowed.
func owner(reg *tools.Registry, all []playbooks.Playbook, message string) OfferInput {
	return OfferInput{Registry: reg, Role: workspace.RoleOwner, Settings: workspace.Settings{ConnectedAppWrites: true},
		Message: message, Playbooks: all}
}

func requireNoDuplicates(t *testing.T, names []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, n := range names {
		require.False(t, seen[n], "%s offered twice in %v", n, names)
		seen[n] = true
	}
}

func requireReservedPresent(t *testing.T, names []string) {
	t.Helper()
	for _, r := range reservedTools {
		if isWebTool(r) { // registered only with a search provider (TestWebToolsAreCoreTools)
			continue
		}
		require.Contains(t, names, r)
	}
}

func isWebTool(name string) bool { return name == tools.WebSearchTool || name == tools.ReadWebPageTool }

func TestMaxOfferedToolsIsTwentyFour(t *testing.T) {
	require.Equal(t, 24, MaxOfferedTools)
	require.Len(t, reservedTools, 6)
}

func TestOfferNeverPassesTheCapOnAHugeRegistry(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 3000)
	messages := []string{
		"list create update delete search export archive share comment get issues tasks messages files",
		"which overdue tasks belong to the Website project and who owns them? post it to Slack",
		"hello",
		"",
	}
	for _, m := range messages {
		for _, ranker := range []Ranker{nil, rankerFunc(func(string, []*tools.Definition) ([]string, error) {
			return nil, errors.New("index unavailable")
		})} {
			in := owner(reg, all, m)
			in.AppNames = []string{"Slack"}
			in.Ranker = ranker
			for _, d := range SyntheticTools(40) {
				in.Added = append(in.Added, d.Name)
			}
			got := BuildOffer(in)
			require.LessOrEqual(t, len(got.Tools), MaxOfferedTools, "message %q", m)
			requireNoDuplicates(t, got.Tools)
			requireReservedPresent(t, got.Tools)
		}
	}
}

func TestReservedToolsSitAtTheTailUnlessRanked(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 1500)
	got := BuildOffer(owner(reg, all, "export the Figma comments"))
	require.False(t, got.Fallback)
	require.Len(t, got.Tools, MaxOfferedTools, "the ranker found plenty: the head is full")
	require.Equal(t, reservedTools[:4], got.Tools[len(got.Tools)-4:], "the tail, in its order (no web tools without a provider)")

	got = BuildOffer(owner(reg, all, "show me the overdue tasks"))
	require.Equal(t, "hub_list_tasks", got.Tools[0], "a reserved tool the ranking puts first is offered first")
	require.Equal(t, 1, countOf(got.Tools, "hub_list_tasks"))
	requireReservedPresent(t, got.Tools)
	require.LessOrEqual(t, len(got.Tools), MaxOfferedTools)
}

func countOf(names []string, name string) int {
	n := 0
	for _, x := range names {
		if x == name {
			n++
		}
	}
	return n
}

func TestOfferOrderRoutedThenAddedThenRanked(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 100)
	ranker := rankerFunc(func(string, []*tools.Definition) ([]string, error) {
		return []string{"jira_list_issue", "hub_update_project", "slack_list_message", "hub_list_projects"}, nil
	})
	in := owner(reg, all, "rename the Website project")
	in.Ranker = ranker
	in.Added = []string{"gmail_list_email", "hub_list_connections"}
	got := BuildOffer(in)
	require.Equal(t, []string{
		// The projects playbook's tools, in the ranker's order, then its own.
		"hub_update_project", "hub_list_projects", "hub_create_project", "hub_list_tasks",
		// Added, in the order they were added.
		"gmail_list_email", "hub_list_connections",
		// The ranker's other matches.
		"jira_list_issue", "slack_list_message",
		// The reserved tools not offered above.
		"hub_list_people", "hub_how_to", "hub_find_tools",
	}, got.Tools)
	require.Equal(t, []string{"projects"}, guideNames(got.Guides))
	require.Empty(t, got.Recipe)
}

func guideNames(gs []playbooks.Playbook) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.Name)
	}
	return out
}

func TestAddedToolsAreKeptWhenTheHeadIsFull(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 1500)
	var everything []string
	for _, d := range SyntheticTools(1500) {
		everything = append(everything, d.Name)
	}
	in := owner(reg, all, "which overdue tasks belong to the Website project? post it to Slack")
	in.AppNames = []string{"Slack"}
	in.Ranker = rankerFunc(func(string, []*tools.Definition) ([]string, error) { return everything, nil })
	in.Added = []string{"zoom_export_recording", "miro_comment_connector", "hub_list_connections"}
	got := BuildOffer(in)
	require.Len(t, got.Tools, MaxOfferedTools)
	for _, a := range in.Added {
		require.Contains(t, got.Tools, a, "a tool the model asked for stays offered")
	}
	requireReservedPresent(t, got.Tools)
	var routed []string
	for _, g := range got.Guides {
		routed = append(routed, g.Tools...)
	}
	require.Contains(t, routed, got.Tools[0], "routed tools still lead, ahead of the ranker's")
}

func TestOnlyGrantedToolsAreEverOffered(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 200)
	writes := map[string]bool{}
	for _, d := range reg.Granted(workspace.RoleOwner) {
		if d.IsWrite {
			writes[d.Name] = true
		}
	}
	var allNames []string
	for _, d := range reg.Granted(workspace.RoleOwner) {
		allNames = append(allNames, d.Name)
	}
	greedy := rankerFunc(func(string, []*tools.Definition) ([]string, error) {
		return append([]string{"no_such_tool", "hub_delete_tasks", "apps_post_update"}, allNames...), nil
	})
	for _, message := range []string{"delete all the done tasks", "post an update to the team channel", "remind me to call Mira"} {
		in := OfferInput{Registry: reg, Role: workspace.RoleViewer, Message: message, Playbooks: all, Ranker: greedy,
			Added: []string{"hub_create_tasks", "jira_create_issue", "no_such_tool"}}
		got := BuildOffer(in)
		for _, name := range got.Tools {
			require.False(t, writes[name], "a viewer is offered %s", name)
			require.NotEqual(t, "no_such_tool", name)
		}
	}
	guest := BuildOffer(OfferInput{Registry: reg, Role: workspace.RoleGuest, Message: "post an update to the team channel",
		Playbooks: all, AppNames: []string{"Team channel"}})
	require.NotContains(t, guest.Tools, "apps_post_update")
	require.NotContains(t, guest.Tools, "hub_list_connections")

	noProjects := BuildOffer(OfferInput{Registry: reg, Role: workspace.RoleOwner, Settings: workspace.Settings{AllowedWriteAreas: []string{"tasks"}},
		Message: "rename the Website project", Playbooks: all})
	require.NotContains(t, noProjects.Tools, "hub_update_project")
	require.Contains(t, noProjects.Tools, "hub_list_projects")
}

func TestSimpleTodoGetsFiveToolsAndARecipe(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 1500)
	got := BuildOffer(owner(reg, all, "remind me to renew the domain before Friday"))
	require.Equal(t, playbooks.SimpleTodoTools, got.Tools)
	require.Equal(t, playbooks.SimpleTodoRecipe, got.Recipe)
	require.Empty(t, got.Guides)

	in := owner(reg, all, "remind me to renew the domain before Friday")
	in.Added = []string{"hub_update_tasks", "hub_create_tasks"}
	got = BuildOffer(in)
	require.Equal(t, append(slices.Clone(playbooks.SimpleTodoTools), "hub_update_tasks"), got.Tools, "what the model added stays")

	viewer := BuildOffer(OfferInput{Registry: reg, Role: workspace.RoleViewer, Message: "remind me to renew the domain", Playbooks: all})
	require.Empty(t, viewer.Recipe, "a viewer cannot add the task: not the simple path")
	require.NotContains(t, viewer.Tools, "hub_create_tasks")
	require.Equal(t, []string{"tasks"}, guideNames(viewer.Guides))
}

func TestFallbackWhenTheRankerFailsPanicsOrFindsNothing(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 1500)
	rankers := map[string]Ranker{
		"error":         rankerFunc(func(string, []*tools.Definition) ([]string, error) { return nil, errors.New("index unavailable") }),
		"panic":         rankerFunc(func(string, []*tools.Definition) ([]string, error) { panic("nil map") }),
		"nothing":       rankerFunc(func(string, []*tools.Definition) ([]string, error) { return nil, nil }),
		"only unknowns": rankerFunc(func(string, []*tools.Definition) ([]string, error) { return []string{"ghost", "ghost"}, nil }),
		"only reserved": rankerFunc(func(string, []*tools.Definition) ([]string, error) { return []string{HowToTool, "hub_list_tasks"}, nil }),
	}
	for name, r := range rankers {
		t.Run(name, func(t *testing.T) {
			in := owner(reg, all, "export the figma comments")
			in.Ranker = r
			got := BuildOffer(in)
			require.True(t, got.Fallback)
			require.NotEmpty(t, got.FallbackReason)
			require.Len(t, got.Tools, MaxOfferedTools, "the fallback fills the same 24, never more")
			requireNoDuplicates(t, got.Tools)
			requireReservedPresent(t, got.Tools)
			require.Equal(t, "figma_export_comment", got.Tools[0], "the local word match leads")
		})
	}
	got := BuildOffer(owner(reg, all, "export the figma comments"))
	require.False(t, got.Fallback, "the default ranker finds it")
	require.Contains(t, got.Tools[:3], "figma_export_comment")
}

func TestFallbackSurvivesToolsMissingFields(t *testing.T) {
	odd := []*tools.Definition{
		stub("no_description", "", false),
		{Spec: tools.Spec{Name: "nil_schema", Description: "Export tasks somewhere"}}, // Schema nil
		stub("", "a tool without a name is never offered", false),
		stub("export_everything", "Export", false),
	}
	reg := tools.NewRegistry(odd...)
	for _, d := range SyntheticTools(30) {
		reg.Add(d)
	}
	all := shippedPlaybooks(t)
	for _, r := range []Ranker{nil, rankerFunc(func(string, []*tools.Definition) ([]string, error) { panic("boom") })} {
		in := owner(reg, all, "export tasks")
		in.Ranker = r
		var got OfferResult
		require.NotPanics(t, func() { got = BuildOffer(in) })
		require.Contains(t, got.Tools, "nil_schema")
		require.Contains(t, got.Tools, "export_everything")
		require.NotContains(t, got.Tools, "")
		require.LessOrEqual(t, len(got.Tools), MaxOfferedTools)
	}
	require.NotPanics(t, func() {
		localMatch("export tasks", append(odd, nil), 10)
		_, _ = NewWordRanker().Rank("export tasks", append(odd, nil))
	})
	require.Equal(t, []string{"nil_schema", "export_everything"}, localMatch("export tasks", append(odd, nil), 10))
}

func TestOfferIsStable(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 1500)
	for _, m := range []string{"assign the onboarding checklist to Mira", "share the weekly report", "hello"} {
		first := BuildOffer(owner(reg, all, m))
		for i := 0; i < 5; i++ {
			require.Equal(t, first.Tools, BuildOffer(owner(reg, all, m)).Tools, m)
		}
	}
}

func TestOfferWithoutARegistryIsEmpty(t *testing.T) {
	got := BuildOffer(OfferInput{Message: "anything"})
	require.Empty(t, got.Tools)
	require.True(t, got.Fallback)
}

func TestOfferOnHubAloneHoldsTheRightTools(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 0)
	got := BuildOffer(owner(reg, all, "post an update to the team channel"))
	require.Equal(t, []string{"apps_post_update", "hub_list_connections"}, got.Tools[:2])
	in := owner(reg, all, "what about this one")
	in.Mentions = []workspace.Ref{{Kind: workspace.KindProject, ID: "p1", Label: "Website"}}
	got = BuildOffer(in)
	require.Equal(t, []string{"projects"}, guideNames(got.Guides), "a mention routes")
	require.Contains(t, got.Tools, "hub_update_project")
}

func TestWordRanker(t *testing.T) {
	reg := tools.Hub(nil)
	defs := reg.Granted(workspace.RoleOwner)
	r := NewWordRanker()
	for query, first := range map[string]string{
		"remove the old to-dos":          "hub_delete_tasks",
		"rename a project":               "hub_update_project",
		"which apps are connected":       "hub_list_connections",
		"who are my teammates":           "hub_list_people",
		"posting updates to the channel": "apps_post_update",
	} {
		got, err := r.Rank(query, defs)
		require.NoError(t, err)
		require.NotEmpty(t, got, query)
		require.Equal(t, first, got[0], "%s: %v", query, got)
	}
	got, err := r.Rank("the of and", defs)
	require.NoError(t, err)
	require.Empty(t, got, "stop words find nothing")

	d := stub("changing", "Old words", false)
	got, _ = r.Rank("zebra", []*tools.Definition{d})
	require.Empty(t, got)
	d.Description = "A zebra crossing"
	got, _ = r.Rank("zebra", []*tools.Definition{d})
	require.Equal(t, []string{"changing"}, got, "a changed description is read again, not served from the cache")
}

func TestStemAndWords(t *testing.T) {
	for in, want := range map[string]string{
		"tasks": "task", "posted": "post", "posting": "post", "update": "updat", "updated": "updat",
		"priorities": "priority", "planned": "plan", "status": "status", "calls": "call", "due": "due",
	} {
		require.Equal(t, want, stem(in), in)
	}
	require.Equal(t, []string{"hub", "list", "tasks", "assignee", "Id"}, splitIdentifierWords("hub_list_tasks assigneeId"))
	require.Equal(t, []string{"task", "delet"}, rankWords("To-do: remove"))
}

func TestWorkflowCasesCountOnceTheToolExists(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 1500)
	reg.Add(stub("hub_run_workflow", "Propose 2 to 12 write steps that run in order under one Apply.", true))
	set, err := OfferEvalSet()
	require.NoError(t, err)
	rep := EvalOffer(set.Cases, reg, all)
	require.Zero(t, rep.Skipped)
	for _, row := range rep.Rows {
		if row.Expected == "hub_run_workflow" {
			require.Positive(t, row.Position, "%q: the workflows playbook routes it", row.Request)
		}
	}
	t.Logf("with hub_run_workflow registered: recall %.3f (%d/%d)", rep.Recall(), rep.Hits, rep.Counted)
}

// TestOfferIsSafeForConcurrentTurns: a worker builds offers for many turns
// at once through the one default ranker and its cache (run with -race).
func TestOfferIsSafeForConcurrentTurns(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 300)
	want := BuildOffer(owner(reg, all, "share the weekly report with the team")).Tools
	var wg sync.WaitGroup
	results := make([][]string, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = BuildOffer(owner(reg, all, "share the weekly report with the team")).Tools
		}()
	}
	wg.Wait()
	for _, got := range results {
		require.Equal(t, want, got)
	}
}

// The people writes are offered to owners when a message is about people,
// and to no one else (the service would refuse them).
func TestPeopleWritesAreOfferedToOwnersOnly(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 1500)
	for message, tool := range map[string]string{
		"add Ann Lee to this space as a viewer": "hub_add_person",
		"make Priya an editor":                  "hub_update_person",
		"remove Vera from this space":           "hub_remove_person",
	} {
		got := BuildOffer(owner(reg, all, message))
		require.Contains(t, got.Tools, tool, message)
		for _, role := range []workspace.Role{workspace.RoleEditor, workspace.RoleGuest, workspace.RoleViewer} {
			got := BuildOffer(OfferInput{Registry: reg, Role: role, Message: message, Playbooks: all})
			for _, name := range []string{"hub_add_person", "hub_update_person", "hub_remove_person"} {
				require.NotContains(t, got.Tools, name, "%s: %s", role, message)
			}
			require.Contains(t, got.Tools, "hub_list_people", "%s: %s", role, message)
		}
	}
}

package assistant

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
)

// The web tools are core tools: offered in every turn that is not the
// simple to-do shape, whatever the words (a haystack of 1,500 tools
// included), and never in a simple to-do turn.
func TestWebToolsAreCoreTools(t *testing.T) {
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 1500)
	for _, d := range []*tools.Definition{tools.WebSearch(nil), tools.ReadWebPage(nil)} {
		reg.Add(d)
	}
	for _, m := range []string{"who won the match yesterday?", "export the Figma comments", "hello", "show me the overdue tasks"} {
		got := BuildOffer(owner(reg, all, m))
		require.Contains(t, got.Tools, tools.WebSearchTool, m)
		require.Contains(t, got.Tools, tools.ReadWebPageTool, m)
		require.LessOrEqual(t, len(got.Tools), MaxOfferedTools)
		requireNoDuplicates(t, got.Tools)
	}
	got := BuildOffer(owner(reg, all, "what's the latest news on the Go release?"))
	require.NotEmpty(t, got.Guides)
	require.Equal(t, "web", got.Guides[0].Name, "the web playbook is preloaded for a current-facts question")

	simple := BuildOffer(owner(reg, all, "remind me to call Ken tomorrow"))
	require.NotEmpty(t, simple.Recipe, "the simple to-do shape")
	require.NotContains(t, simple.Tools, tools.WebSearchTool)
	require.NotContains(t, simple.Tools, tools.ReadWebPageTool)
}

// Without a provider there are no web tools to offer.
func TestNoSearchProviderNoWebTools(t *testing.T) {
	require.Empty(t, tools.Web(nil, nil))
	all := shippedPlaybooks(t)
	got := BuildOffer(owner(EvalRegistry(all, 0), all, "what's the latest news on the Go release?"))
	require.NotContains(t, got.Tools, tools.WebSearchTool)
	for _, g := range got.Guides {
		require.NotEqual(t, "web", g.Name, "the web playbook requires the web tools")
	}
}

package assistant

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// mcpStubs are n tools of one MCP server as the registry holds them.
func mcpStubs(conn string, n int, write bool) ([]*tools.Definition, AppOffer) {
	app := AppOffer{ConnectionID: "conn_" + conn, Name: strings.ToUpper(conn[:1]) + conn[1:]}
	var defs []*tools.Definition
	for i := range n {
		d := &tools.Definition{Spec: tools.Spec{Name: fmt.Sprintf("mcp_%s_tool_%03d", conn, i), Area: tools.AreaApps,
			Description: fmt.Sprintf("Read report %d of the tracker", i), IsWrite: write && i%2 == 1}}
		defs = append(defs, d)
		app.Tools = append(app.Tools, d.Name)
	}
	return defs, app
}

func countPrefix(names []string, prefix string) int {
	n := 0
	for _, x := range names {
		if strings.HasPrefix(x, prefix) {
			n++
		}
	}
	return n
}

// Seed 000 §3: an app's tools are offered only when the person asks for
// that app's content or names it; a connection alone is not enough.
func TestMCPToolsOnlyWhenTheAppIsAskedFor(t *testing.T) {
	all := shippedPlaybooks(t)
	defs, tracker := mcpStubs("tracker", 3, true)
	more, wiki := mcpStubs("wiki", 3, false)
	reg := EvalRegistry(all, 0).With(append(defs, more...)...)
	in := func(msg string) OfferInput {
		o := owner(reg, all, msg)
		o.Apps = []AppOffer{tracker, wiki}
		return o
	}
	got := BuildOffer(in("read the tracker report"))
	require.Equal(t, 3, countPrefix(got.Tools, "mcp_tracker_"), "named (any case): all its tools, at the head")
	require.Zero(t, countPrefix(got.Tools, "mcp_wiki_"), "another app is not asked for")
	require.LessOrEqual(t, len(got.Tools), MaxOfferedTools)
	requireReservedPresent(t, got.Tools)

	got = BuildOffer(in("what reports are due this week"))
	require.Zero(t, countPrefix(got.Tools, "mcp_"), "not named: none")
	got = BuildOffer(in("open the trackers page"))
	require.Zero(t, countPrefix(got.Tools, "mcp_"), "a name inside another word is no name")

	got = BuildOffer(in("search my connected apps for the launch report"))
	require.Equal(t, 3, countPrefix(got.Tools, "mcp_tracker_"))
	require.Equal(t, 3, countPrefix(got.Tools, "mcp_wiki_"), "asked to search connected apps: every app")

	m := in("what does this say")
	m.Mentions = []workspace.Ref{{Kind: workspace.KindConnection, ID: "conn_wiki", Label: "Wiki"}}
	require.Equal(t, 3, countPrefix(BuildOffer(m).Tools, "mcp_wiki_"), "mentioned: offered")

	// Writes follow the person's connected-app setting like apps_post_update.
	m = in("read the tracker report")
	m.Settings.ConnectedAppWrites = false
	got = BuildOffer(m)
	require.Equal(t, 2, countPrefix(got.Tools, "mcp_tracker_"), "its write is not offered when app changes are off")
	require.NotContains(t, got.Tools, "mcp_tracker_tool_001")

	// A guest is offered no app tool.
	m = in("read the tracker report")
	m.Role = workspace.RoleGuest
	require.Zero(t, countPrefix(BuildOffer(m).Tools, "mcp_"))
}

// At most MaxAppTools app tools a turn: built-in first, then apps_*, then
// MCP; of a server with 200 tools the best ranked reach the head.
func TestAppToolsAreBoundedBuiltInFirst(t *testing.T) {
	all := shippedPlaybooks(t)
	defs, big := mcpStubs("big", 200, false)
	reg := EvalRegistry(all, 0).With(defs...)
	offerable := Offer(reg, workspace.RoleOwner, workspace.Settings{ConnectedAppWrites: true})
	kept, asked := appGrant(offerable, reg, []AppOffer{big}, map[string]bool{big.ConnectionID: true}, nil)
	builtIn := 0
	for _, n := range kept {
		if d, _ := reg.Get(n); d.Area == tools.AreaApps && !strings.HasPrefix(n, "mcp_") {
			builtIn++
		}
	}
	require.Positive(t, builtIn)
	require.Contains(t, kept, "apps_post_update", "apps_* is never dropped for MCP tools")
	require.Len(t, asked, MaxAppTools-builtIn, "MCP tools fill what is left of the 80")
	require.Equal(t, "mcp_big_tool_000", asked[0], "in the server's order")

	in := owner(reg, all, "read report 50 in Big")
	in.Apps = []AppOffer{big}
	got := BuildOffer(in)
	require.LessOrEqual(t, len(got.Tools), MaxOfferedTools)
	require.GreaterOrEqual(t, countPrefix(got.Tools, "mcp_big_"), MaxAskedAppTools, "the asked app's best ranked tools at the head")
	require.Contains(t, got.Tools, "mcp_big_tool_050", "ranked by the person's words")
	requireReservedPresent(t, got.Tools)
	requireNoDuplicates(t, got.Tools)
}

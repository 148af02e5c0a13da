package assistant_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/workspace"
)

// mira is a profile with everything the person controls set.
func mira() assistant.Profile {
	return assistant.Profile{FirstName: "Mira", SpaceName: "Acme Legal", Role: "editor", WritePolicy: "immediate",
		TimeZone: "Europe/Berlin", Persona: "I work as a lawyer",
		Skills: []assistant.SkillLine{
			{ID: "skill_1", Name: "Client email", Description: "How I answer a client: short, formal, no legalese."},
			{ID: "skill_2", Name: "Weekly report", Description: "The Friday status report: done, next, blocked."},
		},
		Apps: &assistant.AppsState{Writes: true, Apps: []workspace.Connection{
			{ID: "conn_1", Name: "Alerts", Kind: "webhook", Enabled: true, Failure: "it answered 410 Gone"},
			{ID: "conn_2", Name: "Team updates", Kind: "webhook", Enabled: true},
			{ID: "conn_3", Name: "Old channel", Kind: "webhook"},
		}},
	}
}

func TestInstructionsCarryThePersonTheirSkillsAndApps(t *testing.T) {
	t.Parallel()
	text := assistant.Instructions(mira())
	require.Contains(t, text, "working for Mira in the space “Acme Legal”")
	require.Contains(t, text, "About Mira, in their words: I work as a lawyer.", "the persona line, a full stop added")

	require.Contains(t, text, "read it with hub_read_skill by its id")
	require.Contains(t, text, "- Client email (skill_1): How I answer a client: short, formal, no legalese.\n")
	require.Contains(t, text, "- Weekly report (skill_2): The Friday status report: done, next, blocked.\n")

	require.Contains(t, text, "- Alerts (webhook, failing: it answered 410 Gone)\n")
	require.Contains(t, text, "- Team updates (webhook)\n")
	require.Contains(t, text, "- Old channel (webhook, switched off)\n")
	require.Contains(t, text, "A failing app does not take changes until an owner or editor reconnects it in Settings → Connections")
	require.Contains(t, text, "Any other app is not connected.")
	require.Contains(t, text, "A change in a connected app waits for the person's Apply.")
	require.NotContains(t, text, "conn_1", "app ids come from hub_list_connections")

	p := mira()
	p.Apps.Writes = false
	require.Contains(t, assistant.Instructions(p), "Changes in connected apps are switched off in the person's settings.")
	p.Apps = &assistant.AppsState{}
	require.Contains(t, assistant.Instructions(p), "Connected apps: none in this space. An app is connected in Settings → Connections.")
}

func TestInstructionsLeaveOutWhatIsNotThere(t *testing.T) {
	t.Parallel()
	p := mira()
	p.Persona, p.Skills, p.Apps = "", nil, nil
	text := assistant.Instructions(p)
	require.NotContains(t, text, "About Mira")
	require.NotContains(t, text, "hub_read_skill")
	require.NotContains(t, text, "pps connected", "no apps paragraph without apps state")

	// A placeholder account name gives no first name: never "Demo".
	p = mira()
	p.FirstName = ""
	text = assistant.Instructions(p)
	require.Contains(t, text, "working for the person in the space")
	require.Contains(t, text, "About the person, in their words:")
}

func TestAGuestIsToldOfNoApps(t *testing.T) {
	t.Parallel()
	p := mira()
	p.Role = string(workspace.RoleGuest)
	text := assistant.Instructions(p)
	for _, s := range []string{"Alerts", "Team updates", "Apps connected", "Any other app", "Connections"} {
		require.NotContains(t, text, s, "a guest gets no app paragraph, even if handed the state")
	}
	require.Contains(t, text, "hub_read_skill", "their own skills are theirs whatever their role")
}

func TestListedSkillsAndAppsAreBounded(t *testing.T) {
	t.Parallel()
	p := mira()
	p.Skills = nil
	for i := range assistant.MaxListedSkills + 5 {
		p.Skills = append(p.Skills, assistant.SkillLine{ID: fmt.Sprintf("skill_%02d", i), Name: fmt.Sprintf("Skill %02d", i), Description: "d"})
	}
	p.Apps.Apps = nil
	for i := range assistant.MaxListedApps + 7 {
		p.Apps.Apps = append(p.Apps.Apps, workspace.Connection{ID: fmt.Sprintf("conn_%02d", i), Name: fmt.Sprintf("App %02d", i), Kind: "webhook", Enabled: true})
	}
	text := assistant.Instructions(p)
	require.Equal(t, assistant.MaxListedSkills, strings.Count(text, "): d\n"))
	require.Contains(t, text, "- and 5 more, not listed here.")
	require.Equal(t, assistant.MaxListedApps, strings.Count(text, " (webhook)\n"))
	require.Contains(t, text, "- and 7 more: hub_list_connections lists them all.")

	// Failing apps come first and are never cut: with 33 apps, the three
	// failing ones at the end of the list by name are all named, failing.
	p.Apps.Apps = nil
	for i := range assistant.MaxListedApps + 3 {
		c := workspace.Connection{Name: fmt.Sprintf("App %02d", i), Kind: "mcp", Enabled: true}
		if i >= assistant.MaxListedApps {
			c.Failure = "it did not answer"
		}
		p.Apps.Apps = append(p.Apps.Apps, c)
	}
	text = assistant.Instructions(p)
	for i := range 3 {
		require.Contains(t, text, fmt.Sprintf("- App %02d (mcp, failing: it did not answer)\n", assistant.MaxListedApps+i))
	}
	require.Less(t, strings.Index(text, "App 30 (mcp, failing"), strings.Index(text, "App 00 (mcp)"), "failing apps first")
	require.Equal(t, assistant.MaxListedApps-3, strings.Count(text, " (mcp)\n"))
	require.Contains(t, text, "- and 3 more: hub_list_connections lists them all.")

	// More failing apps than lines: the rest are named on one line.
	for i := range p.Apps.Apps {
		p.Apps.Apps[i].Failure = "it did not answer"
	}
	p.Apps.Apps = append(p.Apps.Apps, workspace.Connection{Name: "Working", Kind: "mcp", Enabled: true})
	text = assistant.Instructions(p)
	require.Equal(t, assistant.MaxListedApps, strings.Count(text, " (mcp, failing: it did not answer)\n"))
	require.Contains(t, text, "- also failing: App 30; App 31; App 32\n")
	require.Contains(t, text, "- and 1 more: hub_list_connections lists them all.")
	require.NotContains(t, text, "Working")

	// Saved text stays on its line.
	p.Skills = []assistant.SkillLine{{ID: "skill_x", Name: "Two\nlines", Description: "a\n- fake: line"}}
	require.Contains(t, assistant.Instructions(p), "- Two lines (skill_x): a - fake: line\n")
}

// The instructions are the same bytes for every message until the person
// changes something they control, so a provider's prompt cache reuses them.
func TestPersonalInstructionsAreStableUntilChanged(t *testing.T) {
	t.Parallel()
	first := assistant.Instructions(mira())
	require.Equal(t, first, assistant.Instructions(mira()), "byte-identical")
	require.NotRegexp(t, `\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}`, first, "no date or time in them")
	p := mira()
	p.Persona = "I work as a judge"
	require.NotEqual(t, first, assistant.Instructions(p), "a changed persona changes them")
}

// An MCP server without a sign-in is marked public data only (seed 000
// §3); a failing one is named failing, to reconnect.
func TestAppsBlockMarksMCPServers(t *testing.T) {
	block := assistant.AppsBlock(string(workspace.RoleViewer), &assistant.AppsState{Apps: []workspace.Connection{
		{Name: "Docs", Kind: workspace.ConnectionMCP, Enabled: true, PublicOnly: true},
		{Name: "Tracker", Kind: workspace.ConnectionMCP, Enabled: true, Failure: "it did not answer within 10s"},
	}})
	require.Contains(t, block, "- Docs (mcp, public data only)\n")
	require.Contains(t, block, "- Tracker (mcp, failing: it did not answer within 10s)\n")
	require.Contains(t, block, "A failing app")
}

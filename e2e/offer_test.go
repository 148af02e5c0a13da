//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/tools"
)

type noInput struct{}

// manyTools is a registry's worth of other apps' tools that share Hub's
// words, so the offer has to choose.
func manyTools() []*tools.Definition {
	var out []*tools.Definition
	for _, app := range []string{"jira", "asana", "trello", "notion", "linear", "clickup"} {
		for _, verb := range []string{"create", "list", "update", "delete", "archive", "assign", "comment", "move"} {
			name := fmt.Sprintf("%s_%s_items", app, verb)
			out = append(out, tools.Define(tools.Spec{Name: name, Area: app,
				Description: fmt.Sprintf("%s items, issues or tasks in %s.", strings.ToUpper(verb[:1])+verb[1:], app)},
				func(context.Context, tools.Env, noInput) (tools.Result, error) {
					return tools.Result{Summary: "ok"}, nil
				}))
		}
	}
	return out
}

func TestModelIsOfferedAtMost24ToolsWithTheExpectedOne(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{ExtraTools: manyTools(),
		Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	conv := s.Conversation(t)
	for _, q := range []string{
		"move the launch tasks to done and tell me which ones are left",
		"who is on this team and what are they working on?",
		"create a project for the spring launch",
	} {
		st := s.Ask(t, conv, q)
		s.Stream(t, st.StreamURL, 0, 0)
	}
	reqs := s.Model.Requests()
	require.Len(t, reqs, 3)
	for i, want := range []string{"hub_update_tasks", "hub_list_people", "hub_create_project"} {
		require.LessOrEqual(t, len(reqs[i].Tools), assistant.MaxOfferedTools)
		require.Contains(t, reqs[i].Tools, want, "request %d", i)
		require.Contains(t, reqs[i].Tools, "hub_how_to", "the reserved tail is never crowded out")
		require.Contains(t, reqs[i].Tools, "hub_find_tools")
	}
}

func TestSimpleTodoGetsFiveToolsAndARecipe(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{ExtraTools: manyTools(),
		Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	st := s.Ask(t, s.Conversation(t), "remind me to call the dentist")
	s.Stream(t, st.StreamURL, 0, 0)
	req := s.Model.Requests()[0]
	require.ElementsMatch(t, []string{"hub_how_to", "hub_create_tasks", "hub_list_tasks", "hub_list_people", "hub_list_projects"}, req.Tools)
	require.Contains(t, req.Messages[len(req.Messages)-1].Content, "Recipe:")
}

func TestFindToolsAddsToolsForTheRestOfTheTurn(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{ExtraTools: manyTools(),
		Script: fakemodel.MustParseScript(`{"rules": [
		  {"times": 1, "reply": {"toolCalls": [{"name": "hub_find_tools", "arguments": {"query": "clickup archive"}}]}},
		  {"times": 1, "reply": {"toolCalls": [{"name": "clickup_archive_items", "arguments": {}}]}},
		  {"reply": {"text": "{{.LastToolSummary}}"}}]}`)})
	st := s.Ask(t, s.Conversation(t), "what is on my plate?")
	events := s.Stream(t, st.StreamURL, 0, 0)
	reqs := s.Model.Requests()
	require.Len(t, reqs, 3)
	require.NotContains(t, reqs[0].Tools, "clickup_archive_items")
	require.Contains(t, reqs[1].Tools, "clickup_archive_items", "found tools are offered from the next request on")
	require.LessOrEqual(t, len(reqs[1].Tools), assistant.MaxOfferedTools)
	for _, e := range events {
		if e.Type == "tool" && e.Data["tool"] == "clickup_archive_items" && e.Data["phase"] != "started" {
			require.Equal(t, "done", e.Data["phase"], "a call to the added tool runs")
		}
	}
}

func TestMessageTooLargeForTheWindowEndsWithAClearError(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{ContextTokens: 8192,
		Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	st := s.Ask(t, s.Conversation(t), strings.Repeat("please read this carefully ", 700))
	events := s.Stream(t, st.StreamURL, 0, 0)
	var errFrame map[string]any
	for _, e := range events {
		if e.Type == "error" {
			errFrame = e.Data
		}
	}
	require.NotNil(t, errFrame)
	require.Equal(t, "too_large", errFrame["code"])
	require.Contains(t, errFrame["message"], "too long")
	require.Empty(t, s.Model.Requests(), "nothing is sent that cannot fit")
}

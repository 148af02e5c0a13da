//go:build e2e

package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/hubtest"
	"hub/mcpapps"
	"hub/workspace"
)

// GET /api/prompts shows every prompt Hub sends, as built with sample
// values, each within its budget; only a signed-in person reads it.
func TestPromptsCatalog(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{NoModel: true, SQLite: true})

	r := s.Do(t, "", "GET", "/api/prompts", nil)
	require.Equal(t, http.StatusUnauthorized, r.Status)
	require.Equal(t, "unauthenticated", r.JSON(t)["error"].(map[string]any)["code"])

	var body struct {
		Prompts []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Text        string `json:"text"`
			Tokens      int    `json:"tokens"`
			Budget      int    `json:"budget"`
		} `json:"prompts"`
	}
	viewer, _ := s.Member(t, "Team", "Ken Ito", workspace.RoleViewer)
	for _, token := range []string{s.Token, viewer} {
		r = s.Do(t, token, "GET", "/api/prompts", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		r.Decode(t, &body)
		require.Len(t, body.Prompts, len(assistant.Catalog(mcpapps.SampleTools()...)))
	}

	byName := map[string]string{}
	for _, p := range body.Prompts {
		require.NotEmpty(t, p.Description, p.Name)
		require.NotEmpty(t, strings.TrimSpace(p.Text), p.Name)
		require.Equal(t, assistant.EstimateTokens(p.Text), p.Tokens, p.Name)
		require.Positive(t, p.Budget, p.Name)
		require.LessOrEqual(t, p.Tokens, p.Budget, "%s is over its budget", p.Name)
		byName[p.Name] = p.Text
	}
	for _, policy := range []string{"immediate", "preview", "needs-me"} {
		require.Contains(t, byName["instructions."+policy], assistant.WriteModeNote(policy))
	}
	require.True(t, strings.HasPrefix(byName["context"], "<context>\n"))
	require.Equal(t, assistant.FinalStepNote, byName["final-step"])
	require.Equal(t, assistant.HeldWriteNote, byName["held-write"])
	for _, name := range []string{"nudge.lookup", "nudge.tool-call-as-text", "nudge.announced-write", "nudge.held-done", "verify", "tool.hub_create_tasks",
		"tool.hub_add_person", "tool.hub_update_person", "tool.hub_remove_person", "playbook.people", "tool.hub_update_settings"} {
		require.Contains(t, byName, name)
	}

	r = s.Do(t, "", "GET", "/api/openapi.json", nil)
	require.Contains(t, r.JSON(t)["paths"], "/api/prompts")
}

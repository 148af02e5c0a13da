//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// TestSQLiteMCPTurn: on SQLite (one connection) a turn in a space with an
// MCP server — whose catalog reads through a handle of its own and whose
// tools go out of the process — runs to its end beside a Hub tool of the
// same step: no transaction is held across the catalog's reads or the
// server's call.
func TestSQLiteMCPTurn(t *testing.T) {
	t.Parallel()
	app := newMCPApp(t)
	s := hubtest.Start(t, hubtest.Options{SQLite: true, AppsAllow: []string{hostOf(app.URL)}, Script: fakemodel.MustParseScript(`{"rules": []}`)})
	r := s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/connections", map[string]any{"kind": "mcp", "name": "Tracker", "url": app.URL})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	lookup := toolNamed(t, r.JSON(t), "lookup")

	s.Model.SetScript(fakemodel.MustParseScript(fmt.Sprintf(`{"rules": [
	  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": %q, "arguments": {"query": "HUB-7"}},
	    {"name": "hub_list_tasks", "arguments": {}}]}},
	  {"reply": {"text": "{{.LastToolSummary}}"}}]}`, lookup)))
	st := s.Ask(t, s.Conversation(t), "look up HUB-7 in Tracker and list my tasks")
	phases := map[string]string{}
	events := s.Stream(t, st.StreamURL, 0, 0)
	for _, e := range events {
		if e.Type == "tool" && e.Data["phase"] != "started" {
			phases[e.Data["tool"].(string)] = e.Data["phase"].(string)
		}
	}
	require.Equal(t, "done", events[len(events)-1].Data["status"], "%v", events)
	require.Equal(t, "done", phases[lookup], "the MCP read ran")
	require.Equal(t, "done", phases["hub_list_tasks"], "the Hub tool ran")
	require.EqualValues(t, 1, app.reads.Load())
}

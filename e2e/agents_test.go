//go:build e2e

package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

// TestAgentsBelongToTheirOwner: a person's agents through the api, on both
// engines: made in spaces the person can open (another's space is 404 and
// nothing is stored), listed, read and changed at their version, invisible
// to anyone else, and deleted.
func TestAgentsBelongToTheirOwner(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{NoModel: true, SQLite: sqlite})
		otherToken, otherSpace := s.Member(t, "Elsewhere", "Ken Ito", workspace.RoleEditor)
		second, _, err := s.Workspace.EnsureMember(t.Context(), "Second", "Mira Chen", workspace.RoleViewer) // the owner, a viewer there
		require.NoError(t, err)
		errOf := func(r hubtest.Response) map[string]any {
			t.Helper()
			return r.JSON(t)["error"].(map[string]any)
		}
		body := func() map[string]any {
			return map[string]any{"name": "Morning brief", "persona": "You prepare the owner's day.",
				"spaces": []string{s.SpaceID, second, s.SpaceID}, "tools": []string{"crm_lookup"},
				"withoutTools": []string{"hub_delete_tasks"}, "purpose": "morning-brief"}
		}

		// Bad input is refused at its field, and nothing is stored.
		for _, tc := range []struct {
			field string
			value any
			path  string
		}{
			{"name", "", "/name"},
			{"name", strings.Repeat("n", workspace.MaxAgentName+1), "/name"},
			{"persona", strings.Repeat("p", workspace.MaxAgentPersona+1), "/persona"},
			{"spaces", []string{}, "/spaces"},
			{"spaces", []string{s.SpaceID, otherSpace}, "/spaces/1"},
			{"tools", []string{"has space"}, "/tools/0"},
			{"withoutTools", []string{""}, "/withoutTools/0"},
			{"purpose", "Not A Slug", "/purpose"},
			{"model", "no-such-model", "/model"},
			{"enabled", "yes", "/enabled"},
			{"owner", "x", "/owner"},
		} {
			b := body()
			b[tc.field] = tc.value
			r := s.Do(t, s.Token, "POST", "/api/agents", b)
			require.Contains(t, []int{http.StatusBadRequest, http.StatusNotFound}, r.Status, "%s: %s", tc.field, r.Body)
			require.Equal(t, tc.path, errOf(r)["path"], "%s: %s", tc.field, r.Body)
		}
		r := s.Do(t, s.Token, "GET", "/api/agents", nil)
		require.Equal(t, map[string]any{"agents": []any{}}, r.JSON(t), "nothing stored")

		r = s.Do(t, s.Token, "POST", "/api/agents", body())
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		a := r.JSON(t)
		id := a["id"].(string)
		require.Equal(t, []any{s.SpaceID, second}, a["spaces"], "repeats dropped, order kept")
		require.Equal(t, []any{"crm_lookup"}, a["tools"])
		require.Equal(t, []any{"hub_delete_tasks"}, a["withoutTools"])
		require.Equal(t, "morning-brief", a["purpose"])
		require.Equal(t, true, a["enabled"])
		require.EqualValues(t, 1, a["version"])
		r = s.Do(t, s.Token, "POST", "/api/agents", map[string]any{"name": "MORNING brief", "spaces": []string{s.SpaceID}})
		require.Equal(t, http.StatusConflict, r.Status, "a name is the owner's once, in any case: %s", r.Body)

		// Someone else neither sees nor touches it.
		r = s.Do(t, otherToken, "GET", "/api/agents/"+id, nil)
		require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
		r = s.Do(t, otherToken, "PATCH", "/api/agents/"+id, map[string]any{"version": 1, "name": "Mine"})
		require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
		r = s.Do(t, otherToken, "DELETE", "/api/agents/"+id, nil)
		require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
		r = s.Do(t, otherToken, "GET", "/api/agents", nil)
		require.Equal(t, map[string]any{"agents": []any{}}, r.JSON(t))

		// Changes go at the version read; null clears, purpose falls back.
		r = s.Do(t, s.Token, "PATCH", "/api/agents/"+id, map[string]any{"version": 1, "enabled": false, "tools": nil,
			"purpose": nil, "spaces": []string{second}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		a = r.JSON(t)
		require.Equal(t, false, a["enabled"])
		require.Equal(t, []any{}, a["tools"])
		require.Equal(t, workspace.DefaultAgentPurpose, a["purpose"])
		require.Equal(t, []any{second}, a["spaces"])
		require.Equal(t, "You prepare the owner's day.", a["persona"], "an unset field is kept")
		r = s.Do(t, s.Token, "PATCH", "/api/agents/"+id, map[string]any{"version": 1, "name": "Stale"})
		require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
		require.Contains(t, errOf(r)["message"], "is at version 2, not 1")
		r = s.Do(t, s.Token, "PATCH", "/api/agents/"+id, map[string]any{"version": 2, "spaces": []string{otherSpace}})
		require.Equal(t, http.StatusNotFound, r.Status, "another's space: %s", r.Body)
		r = s.Do(t, s.Token, "PATCH", "/api/agents/"+id, map[string]any{"version": 2, "spaces": nil})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		r = s.Do(t, s.Token, "GET", "/api/agents/"+id, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.EqualValues(t, 2, r.JSON(t)["version"], "refused changes changed nothing")
		require.Equal(t, []any{second}, r.JSON(t)["spaces"])

		r = s.Do(t, s.Token, "GET", "/api/agents", nil)
		require.Len(t, r.JSON(t)["agents"], 1)
		r = s.Do(t, s.Token, "DELETE", "/api/agents/"+id+"?version=1", nil)
		require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
		r = s.Do(t, s.Token, "DELETE", "/api/agents/"+id+"?version=2", nil)
		require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
		r = s.Do(t, s.Token, "GET", "/api/agents/"+id, nil)
		require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	})
}

// TestAnAgentWorksWithItsCharterToolsAndOwnersRoles: an agent's turns run
// the turn workflow with its charter in place of the owner's persona,
// without the tools it goes without (a call of one is refused), in a
// conversation of its own that later work continues, and with the owner's
// role: an agent whose owner only views a space cannot write there. A
// switched-off agent takes no work; nothing is saved for refused work.
func TestAnAgentWorksWithItsCharterToolsAndOwnersRoles(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(`{"rules": [
		  {"match": {"lastUser": "list", "afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_list_tasks", "arguments": {}}]}},
		  {"match": {"lastUser": "add", "afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Agent task"}]}}]}},
		  {"reply": {"text": "done"}}]}`)})
		viewed, _, err := s.Workspace.EnsureMember(t.Context(), "Viewed", "Mira Chen", workspace.RoleViewer)
		require.NoError(t, err)
		r := s.Do(t, s.Token, "POST", "/api/agents", map[string]any{"name": "Morning brief",
			"persona": "Prepare my day from the tasks due.", "spaces": []string{s.SpaceID}, "withoutTools": []string{"hub_list_tasks"}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		brief := r.JSON(t)["id"].(string)

		// Work for the agent opens its own conversation in its first space.
		r = s.Do(t, s.Token, "POST", "/api/agents/"+brief+"/turns", map[string]any{"text": "list what is due"})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		started := r.JSON(t)
		convID := started["conversationId"].(string)
		s.Stream(t, started["streamUrl"].(string), 0, 0)
		r = s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+convID, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, brief, r.JSON(t)["agentId"])
		require.Equal(t, s.SpaceID, r.JSON(t)["spaceId"])

		reqs := s.Model.Requests()
		require.Len(t, reqs, 2)
		sys := systemMessage(t, reqs[0])
		require.Contains(t, sys, "You are “Morning brief”, an agent in Hub working for Mira in the space “Team”")
		require.Contains(t, sys, "Your charter, in Mira's words:\nPrepare my day from the tasks due.")
		require.NotContains(t, reqs[0].Tools, "hub_list_tasks", "a tool the agent goes without is never offered")
		require.Contains(t, reqs[0].Tools, "hub_create_tasks")
		last := reqs[1].Messages[len(reqs[1].Messages)-1]
		require.Equal(t, "tool", last.Role)
		require.Contains(t, last.Content, "unknown_tool", "and a call of it is refused: %s", last.Content)

		// Later work continues the conversation; the person's own turns there
		// are the agent's too.
		s.Model.Reset()
		r = s.Do(t, s.Token, "POST", "/api/agents/"+brief+"/turns", map[string]any{"text": "add one", "conversationId": convID})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		require.Equal(t, convID, r.JSON(t)["conversationId"])
		s.Stream(t, r.JSON(t)["streamUrl"].(string), 0, 0)
		require.Contains(t, systemMessage(t, s.Model.Requests()[0]), "You are “Morning brief”")
		tasks := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
		require.Contains(t, string(tasks.Body), "Agent task", "an editor's agent writes")

		// Another conversation is not the agent's.
		own := s.Conversation(t)
		r = s.Do(t, s.Token, "POST", "/api/agents/"+brief+"/turns", map[string]any{"text": "list", "conversationId": own})
		require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)

		// A viewer's agent cannot write: create is neither offered nor run.
		r = s.Do(t, s.Token, "POST", "/api/agents", map[string]any{"name": "Viewer's", "spaces": []string{viewed}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		viewer := r.JSON(t)
		s.Model.Reset()
		r = s.Do(t, s.Token, "POST", "/api/agents/"+viewer["id"].(string)+"/turns", map[string]any{"text": "add one"})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		s.Stream(t, r.JSON(t)["streamUrl"].(string), 0, 0)
		reqs = s.Model.Requests()
		require.Len(t, reqs, 2)
		require.NotContains(t, reqs[0].Tools, "hub_create_tasks")
		require.Contains(t, reqs[1].Messages[len(reqs[1].Messages)-1].Content, "unknown_tool")
		tasks = s.Do(t, s.Token, "GET", "/api/spaces/"+viewed+"/tasks", nil)
		require.NotContains(t, string(tasks.Body), "Agent task")

		// Its running work is in the top bar as its own kind, and Stop all
		// stops it.
		s.Model.SetScript(fakemodel.MustParseScript(endlessText))
		r = s.Do(t, s.Token, "POST", "/api/agents/"+brief+"/turns", map[string]any{"text": "tell me a long story", "conversationId": convID})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		running := r.JSON(t)
		s.Stream(t, running["streamUrl"].(string), 0, 4)
		state := s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)
		require.Len(t, state["activities"], 1)
		act := state["activities"].([]any)[0].(map[string]any)
		require.Equal(t, running["turnId"], act["id"])
		require.Equal(t, "agent", act["kind"])
		r = s.Do(t, s.Token, "POST", "/api/agent/stop", nil)
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		require.EqualValues(t, 1, r.JSON(t)["turns"])
		require.Equal(t, "stopped", s.AwaitStatus(t, running["turnId"].(string))["status"])

		// A failed turn of it, to retry once it is switched off.
		s.Model.SetScript(fakemodel.MustParseScript(`{"rules": [{"reply": {"fault": {"kind": "http_error", "status": 400}}}]}`))
		r = s.Do(t, s.Token, "POST", "/api/agents/"+brief+"/turns", map[string]any{"text": "fail", "conversationId": convID})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		failed := r.JSON(t)["turnId"].(string)
		require.Equal(t, "error", s.AwaitStatus(t, failed)["status"])

		// Switched off, it takes no work, and nothing is saved.
		r = s.Do(t, s.Token, "PATCH", "/api/agents/"+brief, map[string]any{"version": 1, "enabled": false})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		before := s.Do(t, s.Token, "GET", "/api/assistant/conversations?spaceId="+s.SpaceID, nil).Body
		r = s.Do(t, s.Token, "POST", "/api/agents/"+brief+"/turns", map[string]any{"text": "list"})
		require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
		require.Contains(t, r.JSON(t)["error"].(map[string]any)["message"], "switched off")
		r = s.Do(t, s.Token, "POST", "/api/assistant/conversations/"+convID+"/turns", map[string]any{"text": "list"})
		require.Equal(t, http.StatusConflict, r.Status, "its conversation is its: %s", r.Body)
		r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+failed+"/retry", nil)
		require.Equal(t, http.StatusConflict, r.Status, "nor does its failed work run again: %s", r.Body)
		require.JSONEq(t, string(before), string(s.Do(t, s.Token, "GET", "/api/assistant/conversations?spaceId="+s.SpaceID, nil).Body))
		r = s.Do(t, s.Token, "POST", "/api/agents/"+brief+"/turns", map[string]any{"text": ""})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	})
}

// TestAnAgentsAppToolsAreOffered: an agent's tools (a connected app's) are
// offered in its turns though the message does not name the app, and run;
// the owner's own turn with the same message is offered none of them. Its
// model calls count under its purpose, the owner's own under chat.
func TestAnAgentsAppToolsAreOffered(t *testing.T) {
	t.Parallel()
	app := newMCPApp(t)
	s := hubtest.Start(t, hubtest.Options{AppsAllow: []string{hostOf(app.URL)}, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Done."}}]}`)})
	r := s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/connections", map[string]any{"kind": "mcp", "name": "Tracker", "url": app.URL})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	lookup := toolNamed(t, r.JSON(t), "lookup")

	st := s.Ask(t, s.Conversation(t), "what is on my plate today")
	s.Stream(t, st.StreamURL, 0, 0)
	require.NotContains(t, s.Model.Requests()[0].Tools, lookup, "the person's own turn: the app is not named")

	r = s.Do(t, s.Token, "POST", "/api/agents", map[string]any{"name": "Triage", "spaces": []string{s.SpaceID}, "tools": []string{lookup}, "purpose": "triage"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	s.Model.SetScript(fakemodel.MustParseScript(strings.ReplaceAll(`{"rules": [
	  {"match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": "LOOKUP", "arguments": {"query": "T-1"}}]}},
	  {"reply": {"text": "Done."}}]}`, "LOOKUP", lookup)))
	s.Model.Reset()
	r = s.Do(t, s.Token, "POST", "/api/agents/"+r.JSON(t)["id"].(string)+"/turns", map[string]any{"text": "what is on my plate today"})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	s.Stream(t, r.JSON(t)["streamUrl"].(string), 0, 0)
	reqs := s.Model.Requests()
	require.Len(t, reqs, 2)
	require.Contains(t, reqs[0].Tools, lookup, "the agent's tool is offered")
	require.Contains(t, reqs[1].Messages[len(reqs[1].Messages)-1].Content, "T-1 is open", "and runs")
	require.EqualValues(t, 1, app.reads.Load())

	r = s.Do(t, s.Token, "GET", "/api/usage?groupBy=purpose&spaceId="+s.SpaceID, nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	calls := map[string]any{}
	for _, g := range r.JSON(t)["groups"].([]any) {
		calls[g.(map[string]any)["key"].(string)] = g.(map[string]any)["calls"]
	}
	require.Equal(t, map[string]any{"chat": float64(1), "triage": float64(2)}, calls)
}

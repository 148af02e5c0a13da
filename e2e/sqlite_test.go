//go:build e2e

package e2e

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

// On SQLite (hub dev) the database has one connection, so nothing may wait
// for a second one while a transaction holds it. These are the paths that
// take a lock and then need more: a help tool adding tools to the turn's
// offer, and an Apply whose spaces run at once.
func TestSQLiteHelpToolsAddToTheOffer(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{SQLite: true, Script: fakemodel.MustParseScript(`{"rules": [
	  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_how_to", "arguments": {"name": "projects"}},
	    {"name": "hub_find_tools", "arguments": {"query": "people"}}]}},
	  {"times": 1, "match": {"afterToolResult": true}, "reply": {"toolCalls": [{"name": "hub_create_project", "arguments": {"name": "Atlas"}}]}},
	  {"reply": {"text": "Done."}}]}`)})
	st := s.Ask(t, s.Conversation(t), "hello")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	for _, f := range finished(events) {
		require.Equal(t, "done", f["phase"], "%v", f)
	}
	reqs := s.Model.Requests()
	require.GreaterOrEqual(t, len(reqs), 2)
	require.Contains(t, reqs[1].Tools, "hub_create_project", "added by hub_how_to")
	require.Contains(t, reqs[1].Tools, "hub_list_people", "added by hub_find_tools")
	projects := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"].([]any)
	require.Len(t, projects, 1)
}

func TestSQLiteApplyAcrossSpaces(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{SQLite: true})
	spaces := []string{s.SpaceID}
	for _, name := range []string{"North", "South"} {
		_, id := s.Member(t, name, "Mira Chen", workspace.RoleEditor)
		spaces = append(spaces, id)
	}
	s.Model.SetScript(fakemodel.MustParseScript(`{"rules": [
	  {"times": 1, "reply": {"toolCalls": [
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Here"}]}},
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "North 1"}, {"title": "North 2"}], "space": "North"}},
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "South"}], "space": "south"}}]}},
	  {"reply": {"text": "Proposed."}}]}`))
	r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	conv := s.Conversation(t)
	r = s.Do(t, s.Token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "add them", "spaces": spaces[1:]})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	s.Stream(t, st.StreamURL, 0, 0)

	r = s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var res struct {
		Receipts []struct{ Status, SpaceID string }
	}
	r.Decode(t, &res)
	require.Len(t, res.Receipts, 3)
	for i, rc := range res.Receipts {
		require.Equal(t, "succeeded", rc.Status)
		require.Equal(t, spaces[i], rc.SpaceID)
	}
	for i, want := range []int{1, 2, 1} {
		tasks := s.Do(t, s.Token, "GET", "/api/spaces/"+spaces[i]+"/tasks", nil).JSON(t)["tasks"].([]any)
		require.Len(t, tasks, want)
	}
}

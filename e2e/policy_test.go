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

// createThenAnswer: the model adds a task, then reports what the tool said.
const createThenAnswer = `{"rules": [
  {"match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Draft brief"}]}}]}},
  {"reply": {"text": "{{.LastToolSummary}}"}}
]}`

func TestWritePolicyHoldsWritesForApply(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"preview", "needs-me"} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(createThenAnswer)})
			r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": policy})
			require.Equal(t, http.StatusOK, r.Status)
			conv := s.Conversation(t)
			st := s.Ask(t, conv, "add a task to draft the brief")
			events := s.Stream(t, st.StreamURL, 0, 0)

			var held, proposal map[string]any
			for _, e := range events {
				if e.Type == "tool" && e.Data["phase"] == "held" {
					held = e.Data
				}
				if e.Type == "proposal" {
					proposal = e.Data
				}
			}
			require.NotNil(t, held, "the write is held, not run")
			require.Contains(t, held["summary"], "Draft brief")
			require.NotNil(t, proposal)
			require.Equal(t, st.ReplyMessageID, proposal["messageId"])
			require.Len(t, proposal["calls"], 1)

			// Nothing changed; the model was told it is a proposal.
			r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
			require.Empty(t, r.JSON(t)["tasks"])
			reqs := s.Model.Requests()
			last := reqs[len(reqs)-1].Messages
			require.Contains(t, last[len(last)-1].Content, "Proposed, not done")
			require.Contains(t, reqs[0].Messages[0].Content, "wait", "the instructions' write-mode line says writes wait")

			// The reply lists the proposal.
			r = s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
			reply := r.JSON(t)["messages"].([]any)[1].(map[string]any)
			proposals := reply["proposals"].([]any)
			require.Len(t, proposals, 1)
			require.Equal(t, "held", proposals[0].(map[string]any)["status"])

			r = s.Do(t, s.Token, "GET", "/api/assistant/needs-me", nil)
			items := r.JSON(t)["items"].([]any)
			if policy == "needs-me" {
				require.Len(t, items, 1)
				require.Equal(t, conv, items[0].(map[string]any)["conversationId"])
			} else {
				require.Empty(t, items)
			}
		})
	}
}

func TestViewerIsOfferedNoWriteAndAnyWriteIsRefused(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(createThenAnswer)})
	token, _ := s.Member(t, "Team", "Vera Viewer", workspace.RoleViewer)
	r := s.Do(t, token, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
	require.Equal(t, http.StatusCreated, r.Status)
	conv := r.JSON(t)["id"].(string)
	r = s.Do(t, token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "add a task"})
	require.Equal(t, http.StatusAccepted, r.Status)
	var st hubtest.Started
	r.Decode(t, &st)
	events := s.Stream(t, st.StreamURL, 0, 0)

	reqs := s.Model.Requests()
	for _, name := range reqs[0].Tools {
		require.False(t, strings.Contains(name, "create") || strings.Contains(name, "update") || strings.Contains(name, "delete"),
			"a viewer is offered no write tool, got %s", name)
	}
	var failed map[string]any
	for _, e := range events {
		if e.Type == "tool" && e.Data["phase"] == "failed" {
			failed = e.Data
		}
	}
	require.NotNil(t, failed, "the write the model sent anyway did not run")
	require.Equal(t, "unknown_tool", failed["error"].(map[string]any)["code"])
	r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
	require.Empty(t, r.JSON(t)["tasks"])
}

func TestHistoryCarriesEarlierWritesWithTheirIDs(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"match": {"lastUser": "(?i)add", "afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Buy milk"}]}}]}},
	  {"reply": {"text": "Done."}}]}`)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task to buy milk")
	s.Stream(t, st.StreamURL, 0, 0)
	st = s.Ask(t, conv, "what did you just do?")
	s.Stream(t, st.StreamURL, 0, 0)

	r := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
	taskID := r.JSON(t)["tasks"].([]any)[0].(map[string]any)["id"].(string)
	reqs := s.Model.Requests()
	earlier := reqs[len(reqs)-1].Messages[2]
	require.Equal(t, "assistant", earlier.Role)
	require.Contains(t, earlier.Content, "Added 1 task: “Buy milk”.")
	require.Contains(t, earlier.Content, "[Buy milk](hub://task/"+taskID+")", "the earlier write's record keeps its id")
}

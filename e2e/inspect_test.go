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

// The run inspector shows what the model saw — the instructions, context
// and tools of its first request exactly — and what it did: each step,
// each request as billed, each tool call with its arguments and result,
// the frames sent, and the turn's workflow. Only the turn's owner reads it.
func TestRunInspector(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Book the venue"}]}}]}},
	  {"reply": {"text": "Added it."}}]}`)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task to book the venue")
	s.Stream(t, st.StreamURL, 0, 0)
	reqs := s.Model.Requests()
	require.Len(t, reqs, 2)

	r := s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID+"/inspect", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var in struct {
		Turn     struct{ TurnID, Status string }
		Workflow struct {
			Namespace, WorkflowID, RunID, URL string
		}
		Instructions, Context string
		Offer                 struct {
			Tools []struct{ Name, Why string }
		}
		Steps []struct {
			Step         int
			FinishReason string
			ToolCallIDs  []string `json:"toolCallIds"`
		}
		ModelCalls []struct {
			Step                      int
			Status                    string
			InputTokens, OutputTokens int64
			DurationMs                *int64
		}
		ToolCalls []struct {
			ID, Tool, Status, Summary string
			Arguments                 map[string]any
			Result                    any
		}
		Frames []struct {
			Seq  int64
			Type string
		}
	}
	r.Decode(t, &in)
	require.Equal(t, st.TurnID, in.Turn.TurnID)
	require.Equal(t, "done", in.Turn.Status)
	require.Equal(t, "turn:"+st.TurnID, in.Workflow.WorkflowID)
	require.NotEmpty(t, in.Workflow.RunID)
	require.Equal(t, "default", in.Workflow.Namespace)

	first := reqs[0]
	require.Equal(t, first.Messages[0].Content, in.Instructions, "the system message as sent")
	require.True(t, strings.Contains(first.Messages[len(first.Messages)-1].Content, in.Context), "the context block as sent")
	var offered []string
	for _, tl := range in.Offer.Tools {
		require.Equal(t, "offer", tl.Why)
		offered = append(offered, tl.Name)
	}
	require.Equal(t, first.Tools, offered, "the tools of the first request, in order")

	require.Len(t, in.Steps, 2)
	require.Len(t, in.Steps[0].ToolCallIDs, 1)
	require.Len(t, in.ModelCalls, 2, "one billed request per step")
	for _, m := range in.ModelCalls {
		require.Equal(t, "settled", m.Status)
		require.Positive(t, m.InputTokens)
		require.NotNil(t, m.DurationMs)
	}
	require.Len(t, in.ToolCalls, 1)
	call := in.ToolCalls[0]
	require.Equal(t, in.Steps[0].ToolCallIDs[0], call.ID)
	require.Equal(t, "hub_create_tasks", call.Tool)
	require.Equal(t, "done", call.Status)
	require.Contains(t, call.Arguments, "tasks", "the arguments as JSON")
	require.NotNil(t, call.Result, "what the model was sent back")
	types := map[string]bool{}
	for i, f := range in.Frames {
		require.Equal(t, int64(i+1), f.Seq, "every frame, in order")
		types[f.Type] = true
	}
	require.True(t, types["text"] && types["tool"] && types["done"], "%v", types)

	other, _ := s.Member(t, "Team", "Ken Ito", workspace.RoleOwner)
	require.Equal(t, http.StatusNotFound, s.Do(t, other, "GET", "/api/assistant/turns/"+st.TurnID+"/inspect", nil).Status, "another person's turn")
	r = s.Do(t, s.Token, "GET", "/api/assistant/turns/turn_nope/inspect", nil)
	require.Equal(t, http.StatusNotFound, r.Status)
	require.Equal(t, "not_found", r.JSON(t)["error"].(map[string]any)["code"])
	require.Equal(t, http.StatusUnauthorized, s.Do(t, "", "GET", "/api/assistant/turns/"+st.TurnID+"/inspect", nil).Status)

	// An operator token reads any turn's run, and nothing else.
	_, operator, err := s.Workspace.CreateOperatorToken(t.Context(), workspace.Actor{Via: workspace.ViaCLI}, "Olga Oncall", "", 0)
	require.NoError(t, err)
	r = s.Do(t, operator, "GET", "/api/assistant/turns/"+st.TurnID+"/inspect", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, in.Instructions, r.JSON(t)["instructions"])
	require.Equal(t, http.StatusNotFound, s.Do(t, operator, "GET", "/api/assistant/turns/turn_nope/inspect", nil).Status)
	for _, path := range []string{"/api/spaces", "/api/assistant/turns/" + st.TurnID, "/api/assistant/conversations/" + conv + "/messages"} {
		require.Equal(t, http.StatusUnauthorized, s.Do(t, operator, "GET", path, nil).Status, "%s: an operator token reads only the inspector", path)
	}
}

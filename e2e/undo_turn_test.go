//go:build e2e

package e2e

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// TestAssistantWriteUndoAndRedo: an immediate write by the assistant comes
// with an Undo group that restores exactly the records it changed.
func TestAssistantWriteUndoAndRedo(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Draft brief"}, {"title": "Call Mira"}]}}]}},
	  {"reply": {"text": "{{.LastToolSummary}}"}}]}`)})
	tasks := "/api/spaces/" + s.SpaceID + "/tasks"
	r := s.Do(t, s.Token, "POST", tasks, map[string]any{"title": "Already there"})
	require.Equal(t, http.StatusCreated, r.Status)

	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add two tasks")
	group := ""
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] == "done" {
			group, _ = e.Data["undoGroupId"].(string)
		}
	}
	require.NotEmpty(t, group, "the done tool frame carries its Undo group")
	r = s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	call := r.JSON(t)["messages"].([]any)[1].(map[string]any)["toolCalls"].([]any)[0].(map[string]any)
	require.Equal(t, group, call["undoGroupId"])

	count := func() int { return len(s.Do(t, s.Token, "GET", tasks, nil).JSON(t)["tasks"].([]any)) }
	require.Equal(t, 3, count())
	r = s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "undone", r.JSON(t)["state"])
	require.Equal(t, 1, count(), "undo removed exactly the two tasks the turn added")
	r = s.Do(t, s.Token, "POST", "/api/assistant/redo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, 3, count())

	// Someone else cannot undo it.
	other, _ := s.Member(t, "Team", "Sam Other", "editor")
	r = s.Do(t, other, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusNotFound, r.Status)
}

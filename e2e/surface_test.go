//go:build e2e

package e2e

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/tools"
	"hub/workspace"
)

// surfaceScript calls hub_read_surface whenever it is offered and answers
// with the call's summary; without it offered it says so.
const surfaceScript = `{"rules": [
  {"match": {"afterToolResult": false, "offered": "hub_read_surface"}, "reply": {"toolCalls": [{"name": "hub_read_surface", "arguments": {}}]}},
  {"match": {"afterToolResult": true}, "reply": {"text": "{{.LastToolSummary}}"}},
  {"reply": {"text": "Nothing on screen to read."}}]}`

// surfaceResult is hub_read_surface's result as the model read it.
type surfaceResult struct {
	Summary string `json:"summary"`
	Data    struct {
		View struct {
			Kind        string            `json:"kind"`
			Filters     map[string]string `json:"filters"`
			SelectedIDs []string          `json:"selectedIds"`
			Notes       []string          `json:"notes"`
		} `json:"view"`
		Project *struct{ ID, Name string }  `json:"project"`
		Task    *struct{ ID, Title string } `json:"task"`
		Tasks   []struct {
			ID, Title string
			Selected  bool
		} `json:"tasks"`
	} `json:"data"`
	Error *struct{ Code, Message string } `json:"error"`
}

// readSurfaceAs posts a person's message with a page context in their conversation
// and streams the turn to its end; it returns the tool result the model
// read (nil when no tool ran) and the offered tools of the first request.
func readSurfaceAs(t *testing.T, s *hubtest.Stack, token, conv, text string, page map[string]any) (*surfaceResult, []string, []hubtest.Event) {
	t.Helper()
	s.Model.Reset()
	body := map[string]any{"text": text}
	if page != nil {
		body["context"] = page
	}
	r := s.Do(t, token, "POST", "/api/assistant/conversations/"+conv+"/turns", body)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"], "%v", events)
	reqs := s.Model.Requests()
	require.NotEmpty(t, reqs)
	if len(reqs) < 2 {
		return nil, reqs[0].Tools, events
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	require.Equal(t, "tool", last.Role)
	var res surfaceResult
	require.NoError(t, json.Unmarshal([]byte(last.Content), &res), last.Content)
	return &res, reqs[0].Tools, events
}

// hub_read_surface through the real api, on both engines: a turn whose
// message carries a page context naming a view is offered the tool, and its
// result holds that view's records as the person may see them — a task list
// with its filters and selection, a project's page, the record panel's
// record — resolved in the conversation's space: another space's ids and
// pages are never read. Without a page context the tool is not offered.
func TestReadSurfaceThroughTheAPI(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(surfaceScript)})
		viewerToken, _ := s.Member(t, "Team", "Vera Viewer", workspace.RoleViewer)
		s.Member(t, "Team", "Ken Ito", workspace.RoleEditor)
		ken := personID(t, s, s.SpaceID, "Ken Ito")
		launch := newRecord(t, s, s.Token, s.SpaceID, "projects", map[string]any{"name": "Launch"})
		brief := newRecord(t, s, s.Token, s.SpaceID, "tasks", map[string]any{"title": "Draft brief", "projectId": launch})
		call := newRecord(t, s, s.Token, s.SpaceID, "tasks", map[string]any{"title": "Call Ken", "assigneeId": ken})
		newRecord(t, s, s.Token, s.SpaceID, "tasks", map[string]any{"title": "Ship it", "status": "done"})
		otherToken, otherSpace := s.Member(t, "Elsewhere", "Otto Outsider", workspace.RoleOwner)
		secret := newRecord(t, s, otherToken, otherSpace, "tasks", map[string]any{"title": "Secret plan"})

		// The owner's board, filtered to todo, with a card selected (and
		// another space's id the page claims is selected).
		conv := s.Conversation(t)
		res, offered, events := readSurfaceAs(t, s, s.Token, conv, "what's on my screen?", map[string]any{
			"path": "/tasks", "filters": map[string]any{"status": "todo"},
			"surface": map[string]any{"kind": "board", "selectedIds": []string{call, secret}},
		})
		require.Contains(t, offered, tools.ReadSurfaceTool, "a page naming a view offers the tool")
		require.NotNil(t, res)
		require.Nil(t, res.Error)
		require.Equal(t, "tasks", res.Data.View.Kind)
		require.Equal(t, map[string]string{"status": "todo"}, res.Data.View.Filters)
		require.Len(t, res.Data.Tasks, 2)
		require.Equal(t, []string{brief, call}, []string{res.Data.Tasks[0].ID, res.Data.Tasks[1].ID}, "the list as GET …/tasks?status=todo answers it")
		require.False(t, res.Data.Tasks[0].Selected)
		require.True(t, res.Data.Tasks[1].Selected)
		require.Equal(t, []string{call}, res.Data.View.SelectedIDs)
		require.Equal(t, "The task list on screen: Found 2 tasks: “Draft brief” and “Call Ken”. 1 selected.", res.Summary)
		for _, req := range s.Model.Requests() {
			raw, err := json.Marshal(req.Messages)
			require.NoError(t, err)
			require.NotContains(t, string(raw), secret, "a supplied id is never evidence of access")
		}
		var tool map[string]any
		for _, e := range events {
			if e.Type == "tool" && e.Data["phase"] == "done" {
				tool = e.Data
			}
		}
		require.Equal(t, tools.ReadSurfaceTool, tool["tool"])
		require.Equal(t, res.Summary, tool["summary"])

		// The viewer on the project's page reads the project and its tasks;
		// with the record panel open, the record.
		r := s.Do(t, viewerToken, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		viewerConv := r.JSON(t)["id"].(string)
		res, _, _ = readSurfaceAs(t, s, viewerToken, viewerConv, "summarise this project", map[string]any{"path": "/spaces/" + s.SpaceID + "/projects/" + launch})
		require.Nil(t, res.Error)
		require.Equal(t, "project", res.Data.View.Kind)
		require.Equal(t, "Launch", res.Data.Project.Name)
		require.Len(t, res.Data.Tasks, 1)
		require.Equal(t, brief, res.Data.Tasks[0].ID)

		res, _, _ = readSurfaceAs(t, s, viewerToken, viewerConv, "who is this assigned to?", map[string]any{
			"path": "/projects/" + launch, "open": map[string]any{"kind": "task", "id": call}})
		require.Nil(t, res.Error)
		require.Equal(t, "record", res.Data.View.Kind)
		require.Equal(t, "Call Ken", res.Data.Task.Title)
		require.Equal(t, "Read the record open on screen: the task “Call Ken”.", res.Summary)

		// Another space's page and record are refused, naming no id.
		res, _, _ = readSurfaceAs(t, s, s.Token, conv, "and this?", map[string]any{"path": "/spaces/" + otherSpace + "/tasks"})
		require.NotNil(t, res.Error)
		require.Equal(t, tools.CodeRefused, res.Error.Code)
		res, _, _ = readSurfaceAs(t, s, s.Token, conv, "and this one?", map[string]any{"path": "/tasks", "open": secret})
		require.NotNil(t, res.Error)
		require.Equal(t, tools.CodeNotFound, res.Error.Code)
		require.NotContains(t, res.Error.Message, secret)

		// No page context, or another app's page: the tool is not offered.
		res, offered, _ = readSurfaceAs(t, s, s.Token, conv, "what's on my screen?", nil)
		require.Nil(t, res)
		require.NotContains(t, offered, tools.ReadSurfaceTool)
		res, offered, _ = readSurfaceAs(t, s, s.Token, conv, "what's on my screen?", map[string]any{"app": "jira", "path": "/browse/PROJ-1"})
		require.Nil(t, res)
		require.NotContains(t, offered, tools.ReadSurfaceTool)

		// The reply's tool calls are saved like any read's.
		r = s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var list struct{ Messages []savedMessage }
		r.Decode(t, &list)
		require.Equal(t, tools.ReadSurfaceTool, list.Messages[1].ToolCalls[0].Tool)
		require.Equal(t, "done", list.Messages[1].ToolCalls[0].Status)
	})
}

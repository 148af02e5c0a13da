//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/hubtest"
	"hub/workspace"
)

// TestUndoAndRedoThroughTheAPI undoes and redoes a group of the assistant's
// writes through the api. The group is made through the service directly,
// as the assistant's tool calls make it.
func TestUndoAndRedoThroughTheAPI(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{NoModel: true})
	ctx := context.Background()
	base := "/api/spaces/" + s.SpaceID
	r := s.Do(t, s.Token, "POST", base+"/tasks", map[string]any{"title": "Draft brief"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	brief := r.JSON(t)["id"].(string)

	assistant := workspace.Actor{PersonID: s.OwnerID, Via: workspace.ViaAssistant}
	var group string
	var made []workspace.Task
	require.NoError(t, s.Workspace.InTx(ctx, func(ctx context.Context) error {
		var err error
		if group, err = s.Workspace.NewUndoGroup(ctx, assistant, s.SpaceID, "Plan the week"); err != nil {
			return err
		}
		w := s.Workspace.WithUndo(group)
		if made, err = w.CreateTasks(ctx, assistant, s.SpaceID, "/tasks", []workspace.NewTask{{Title: "Book venue"}}); err != nil {
			return err
		}
		done := "done"
		_, err = w.UpdateTask(ctx, assistant, s.SpaceID, brief, workspace.TaskPatch{Status: &done})
		return err
	}))

	// Someone else in the space cannot undo the owner's group: it does not
	// exist for them.
	other, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
	r = s.Do(t, other, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	require.Equal(t, "not_found", r.JSON(t)["error"].(map[string]any)["code"])

	r = s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, map[string]any{"undoGroupId": group, "state": "undone", "records": []any{
		map[string]any{"kind": "task", "id": made[0].ID, "label": "Book venue"},
		map[string]any{"kind": "task", "id": brief, "label": "Draft brief"},
	}}, r.JSON(t))
	r = s.Do(t, s.Token, "GET", base+"/tasks", nil)
	tasks := r.JSON(t)["tasks"].([]any)
	require.Len(t, tasks, 1, "the created task is gone")
	require.Equal(t, "todo", tasks[0].(map[string]any)["status"])
	require.EqualValues(t, 3, tasks[0].(map[string]any)["revision"], "a restored record gets a new revision")

	r = s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
	require.Equal(t, "conflict", r.JSON(t)["error"].(map[string]any)["code"])

	r = s.Do(t, s.Token, "POST", "/api/assistant/redo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "redone", r.JSON(t)["state"])
	r = s.Do(t, s.Token, "GET", base+"/tasks/"+made[0].ID, nil)
	require.Equal(t, http.StatusOK, r.Status, "back with the same id")

	// Changed on a screen since: Undo says which record and changes nothing.
	r = s.Do(t, s.Token, "PATCH", base+"/tasks/"+brief, map[string]any{"title": "Final brief"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
	require.Contains(t, r.JSON(t)["error"].(map[string]any)["message"], `task "Final brief" was changed`)
	r = s.Do(t, s.Token, "GET", base+"/tasks/"+made[0].ID, nil)
	require.Equal(t, http.StatusOK, r.Status, "nothing was undone")

	r = s.Do(t, s.Token, "POST", "/api/assistant/redo", map[string]any{})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	require.Equal(t, "/undoGroupId", r.JSON(t)["error"].(map[string]any)["path"])
	r = s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": group, "all": true})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	r = s.Do(t, "", "POST", "/api/assistant/undo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusUnauthorized, r.Status)

	r = s.Do(t, "", "GET", "/api/openapi.json", nil)
	paths := r.JSON(t)["paths"].(map[string]any)
	require.Contains(t, paths, "/api/assistant/undo")
	require.Contains(t, paths, "/api/assistant/redo")
}

func TestWriteSettingsThroughTheAPI(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{NoModel: true, SQLite: true})
	r := s.Do(t, s.Token, "GET", "/api/me/settings", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, map[string]any{"writePolicy": "immediate", "allowedWriteAreas": []any{}, "connectedAppWrites": false, "model": "", "effort": ""}, r.JSON(t))

	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"allowedWriteAreas": []string{"tasks", "apps"}, "connectedAppWrites": true})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	want := map[string]any{"writePolicy": "immediate", "allowedWriteAreas": []any{"tasks", "apps"}, "connectedAppWrites": true, "model": "", "effort": ""}
	require.Equal(t, want, r.JSON(t))
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	want["writePolicy"] = "preview"
	require.Equal(t, want, r.JSON(t), "a patch keeps what it does not name")
	r = s.Do(t, s.Token, "GET", "/api/me/settings", nil)
	require.Equal(t, want, r.JSON(t))

	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"allowedWriteAreas": []string{"calendar"}})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	require.Equal(t, "/allowedWriteAreas/0", r.JSON(t)["error"].(map[string]any)["path"])
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"connectedAppWrites": nil})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	require.Equal(t, "/connectedAppWrites", r.JSON(t)["error"].(map[string]any)["path"])
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"connectedAppWrites": "yes"})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)

	// null, like [], allows every area again.
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"allowedWriteAreas": nil})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, []any{}, r.JSON(t)["allowedWriteAreas"])
}

//go:build e2e

package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// proposeTasks turns a preview-policy turn into held writes and returns the
// conversation and the reply that proposed them.
func proposeTasks(t *testing.T, s *hubtest.Stack) (conv, reply string) {
	t.Helper()
	r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	require.Equal(t, http.StatusOK, r.Status)
	conv = s.Conversation(t)
	st := s.Ask(t, conv, "add two tasks")
	s.Stream(t, st.StreamURL, 0, 0)
	return conv, st.ReplyMessageID
}

const proposeTwo = `{"rules": [
  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [
    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Draft brief"}]}},
    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Call Mira"}]}}]}},
  {"reply": {"text": "I proposed two tasks."}}]}`

func TestApplyRunsHeldWritesOnceAndAnswersReceipts(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo)})
	conv, reply := proposeTasks(t, s)
	tasks := "/api/spaces/" + s.SpaceID + "/tasks"
	require.Empty(t, s.Do(t, s.Token, "GET", tasks, nil).JSON(t)["tasks"], "nothing changes until Apply")

	// 50 concurrent Apply requests for one message: one set of writes, the
	// same receipts for all.
	const n = 50
	bodies := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			bodies[i] = string(r.Body)
		})
	}
	wg.Wait()
	for _, b := range bodies[1:] {
		require.JSONEq(t, bodies[0], b, "every request gets the same receipts")
	}
	var res struct {
		ApplyID  string
		Receipts []struct {
			CallID, Tool, Status, Summary, UndoGroupID string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(bodies[0]), &res))
	require.Equal(t, "apply:"+reply, res.ApplyID)
	require.Len(t, res.Receipts, 2)
	for _, r := range res.Receipts {
		require.Equal(t, "succeeded", r.Status)
		require.NotEmpty(t, r.UndoGroupID, "one Undo group for the space")
		require.Equal(t, res.Receipts[0].UndoGroupID, r.UndoGroupID)
	}
	got := s.Do(t, s.Token, "GET", tasks, nil).JSON(t)["tasks"].([]any)
	require.Len(t, got, 2, "applied once")

	// Retry never resends a succeeded call.
	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	require.Equal(t, http.StatusOK, r.Status)
	require.JSONEq(t, bodies[0], string(r.Body))
	require.Len(t, s.Do(t, s.Token, "GET", tasks, nil).JSON(t)["tasks"], 2)

	// The reply's proposals show them applied; one Undo takes both back.
	msgs := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil).JSON(t)["messages"].([]any)
	for _, p := range msgs[1].(map[string]any)["proposals"].([]any) {
		require.Equal(t, "applied", p.(map[string]any)["status"])
	}
	r = s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": res.Receipts[0].UndoGroupID})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Empty(t, s.Do(t, s.Token, "GET", tasks, nil).JSON(t)["tasks"])
}

func TestApplyRechecksAccessAndRefusesWhatIsNotProposed(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo)})
	conv, reply := proposeTasks(t, s)

	other, _ := s.Member(t, "Team", "Sam Other", "editor")
	r := s.Do(t, other, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	require.Equal(t, http.StatusNotFound, r.Status, "another person's conversation")
	r = s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply, "callIds": []string{"forged"}})
	require.Equal(t, http.StatusNotFound, r.Status)
	require.Equal(t, "/callIds/0", r.JSON(t)["error"].(map[string]any)["path"])
	r = s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv})
	require.Equal(t, http.StatusBadRequest, r.Status)

	// The owner became a viewer since the proposal: Apply rechecks access now.
	s.Member(t, "Team", "Mira Chen", "viewer")
	r = s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var res struct{ Receipts []struct{ Status string } }
	r.Decode(t, &res)
	statuses := []string{res.Receipts[0].Status, res.Receipts[1].Status}
	require.Contains(t, statuses, "failed")
	require.Empty(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).JSON(t)["tasks"], "nothing in the space was written")
}

func TestApplyPostsToAConnectedAppOnce(t *testing.T) {
	t.Parallel()
	var posts atomic.Int32
	var key atomic.Value
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !hubPost(r) {
			http.NotFound(w, r)
			return
		}
		require.Contains(t, string(body), "Release is out")
		key.Store(r.Header.Get("Idempotency-Key"))
		posts.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer app.Close()
	s := hubtest.Start(t, hubtest.Options{AppsAllow: []string{strings.TrimPrefix(app.URL, "http://")},
		Script: fakemodel.MustParseScript(`{"rules": []}`)})
	r := s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/connections", map[string]any{"kind": "webhook", "name": "Team updates", "url": app.URL + "/hook"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	connID := r.JSON(t)["id"].(string)
	s.Model.SetScript(fakemodel.MustParseScript(strings.Replace(`{"rules": [
	  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": "apps_post_update", "arguments": {"connectionId": "CONN", "text": "Release is out"}}]}},
	  {"reply": {"text": "{{.LastToolSummary}}"}}]}`, "CONN", connID, 1)))
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"connectedAppWrites": true})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	conv := s.Conversation(t)
	st := s.Ask(t, conv, "tell the team the release is out")
	held := false
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] == "held" {
			held = true
			require.Contains(t, e.Data["summary"], "Team updates")
		}
	}
	require.True(t, held, "a connected-app write always waits for Apply, even under immediate")
	require.Zero(t, posts.Load())

	for range 3 {
		r = s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var res struct {
			Receipts []struct{ Status, CallID string }
		}
		r.Decode(t, &res)
		require.Equal(t, "succeeded", res.Receipts[0].Status)
		require.Equal(t, res.Receipts[0].CallID, key.Load(), "the idempotency key is Hub's call id")
	}
	require.EqualValues(t, 1, posts.Load(), "posted once, however often Apply is asked")
}

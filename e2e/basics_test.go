//go:build e2e

package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

func TestHealthReadinessMetricsAndOpenAPI(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.DefaultScript()})

	r := s.Do(t, "", "GET", "/healthz", nil)
	require.Equal(t, http.StatusOK, r.Status)
	r = s.Do(t, "", "GET", "/readyz", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, map[string]any{"database": "ok", "temporal": "ok"}, r.JSON(t)["checks"])

	s.Do(t, s.Token, "GET", "/api/spaces", nil)
	r = s.Do(t, "", "GET", "/metrics", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Contains(t, string(r.Body), `hub_http_request_duration_seconds_count{method="GET",route="/api/spaces",status="200"} 1`)

	r = s.Do(t, "", "GET", "/api/openapi.json", nil)
	require.Equal(t, http.StatusOK, r.Status)
	doc := r.JSON(t)
	require.Equal(t, "3.1.0", doc["openapi"])
	paths := doc["paths"].(map[string]any)
	for _, p := range []string{"/api/spaces", "/api/spaces/{spaceId}/tasks", "/api/assistant/conversations/{id}/turns", "/api/assistant/turns/{turnId}/stream"} {
		require.Contains(t, paths, p)
	}
}

func TestSpacesAndRecordsThroughREST(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.DefaultScript()})
	r := s.Do(t, s.Token, "GET", "/api/spaces", nil)
	require.Equal(t, []any{map[string]any{"id": s.SpaceID, "name": "Team", "role": "owner"}}, r.JSON(t)["spaces"])

	base := "/api/spaces/" + s.SpaceID
	r = s.Do(t, s.Token, "POST", base+"/projects", map[string]any{"name": "Launch"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	project := r.JSON(t)["id"].(string)
	r = s.Do(t, s.Token, "POST", base+"/tasks", map[string]any{"title": "Write copy", "projectId": project, "assigneeId": s.OwnerID, "priority": "high"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	task := r.JSON(t)
	require.Equal(t, project, task["projectId"])
	id := task["id"].(string)

	r = s.Do(t, s.Token, "PATCH", base+"/tasks/"+id, map[string]any{"status": "done", "projectId": nil, "revision": 1})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "done", r.JSON(t)["status"])
	require.Nil(t, r.JSON(t)["projectId"], "null clears the project")
	require.EqualValues(t, 2, r.JSON(t)["revision"])

	r = s.Do(t, s.Token, "GET", base+"/tasks?status=done&q=copy", nil)
	require.Len(t, r.JSON(t)["tasks"], 1)
	r = s.Do(t, s.Token, "GET", base+"/people", nil)
	require.Equal(t, "Mira Chen", r.JSON(t)["people"].([]any)[0].(map[string]any)["name"])
	r = s.Do(t, s.Token, "PATCH", base+"/projects/"+project, map[string]any{"status": "paused"})
	require.Equal(t, "paused", r.JSON(t)["status"])

	r = s.Do(t, s.Token, "DELETE", base+"/tasks/"+id, nil)
	require.Equal(t, http.StatusNoContent, r.Status)
	r = s.Do(t, s.Token, "GET", base+"/tasks/"+id, nil)
	require.Equal(t, http.StatusNotFound, r.Status)
	r = s.Do(t, s.Token, "DELETE", base+"/projects/"+project, nil)
	require.Equal(t, http.StatusNoContent, r.Status)

	r = s.Do(t, s.Token, "GET", "/api/me/settings", nil)
	require.Equal(t, "immediate", r.JSON(t)["writePolicy"])
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	require.Equal(t, "preview", r.JSON(t)["writePolicy"])
}

func TestConversationsListAndDelete(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "hi")
	s.Stream(t, st.StreamURL, 0, 0)
	r := s.Do(t, s.Token, "GET", "/api/assistant/conversations?spaceId="+s.SpaceID, nil)
	require.Len(t, r.JSON(t)["conversations"], 1)
	r = s.Do(t, s.Token, "DELETE", "/api/assistant/conversations/"+conv, nil)
	require.Equal(t, http.StatusNoContent, r.Status)
	r = s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	require.Equal(t, http.StatusNotFound, r.Status)
	r = s.Do(t, s.Token, "GET", "/api/assistant/conversations?spaceId="+s.SpaceID, nil)
	require.Empty(t, r.JSON(t)["conversations"])
}

func TestCORSAllowsOnlyConfiguredOrigins(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{NoModel: true, CORSOrigins: []string{"https://app.example"}})
	for origin, allowed := range map[string]bool{"https://app.example": true, "https://evil.example": false} {
		req, err := http.NewRequest("OPTIONS", s.URL+"/api/spaces", nil)
		require.NoError(t, err)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "GET")
		resp, err := s.HTTP.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		got := resp.Header.Get("Access-Control-Allow-Origin")
		if allowed {
			require.Equal(t, origin, got)
			require.True(t, strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization"))
		} else {
			require.Empty(t, got)
		}
	}
}

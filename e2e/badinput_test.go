//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/storage"
	"hub/workspace"
)

// counts is how many rows the tables a bad request might touch hold.
func counts(t *testing.T, s *hubtest.Stack) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for name, table := range map[string]any{"tasks": &storage.Task{}, "projects": &storage.Project{},
		"conversations": &storage.Conversation{}, "messages": &storage.Message{}, "turns": &storage.Turn{},
		"tool_calls": &storage.ToolCall{}} {
		var n int64
		require.NoError(t, s.DB.WithContext(context.Background()).Model(table).Count(&n).Error)
		out[name] = n
	}
	return out
}

func TestBadInputIsA4xxAndChangesNothing(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	conv := s.Conversation(t)
	r := s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/tasks", map[string]any{"title": "Mine"})
	require.Equal(t, http.StatusCreated, r.Status)
	taskID := r.JSON(t)["id"].(string)

	// Another space, with a task and a project of its own.
	otherToken, otherSpace := s.Member(t, "Elsewhere", "Olu Ade", workspace.RoleOwner)
	r = s.Do(t, otherToken, "POST", "/api/spaces/"+otherSpace+"/tasks", map[string]any{"title": "Theirs"})
	require.Equal(t, http.StatusCreated, r.Status)
	otherTask := r.JSON(t)["id"].(string)
	r = s.Do(t, otherToken, "POST", "/api/spaces/"+otherSpace+"/projects", map[string]any{"name": "Their project"})
	require.Equal(t, http.StatusCreated, r.Status)
	otherProject := r.JSON(t)["id"].(string)
	viewerToken, _ := s.Member(t, "Team", "Vera Viewer", workspace.RoleViewer)

	turns := "/api/assistant/conversations/" + conv + "/turns"
	tasks := "/api/spaces/" + s.SpaceID + "/tasks"
	cases := []struct {
		name   string
		token  string
		method string
		path   string
		body   any
		status int
		code   string
		at     string // the error's path, when it names one
	}{
		{"no token", "", "GET", "/api/spaces", nil, 401, "unauthenticated", ""},
		{"wrong token", "hub_not_a_token", "GET", "/api/spaces", nil, 401, "unauthenticated", ""},
		{"malformed JSON", s.Token, "POST", turns, `{"text": "hi"`, 400, "invalid_payload", ""},
		{"not an object", s.Token, "POST", turns, `["hi"]`, 400, "invalid_payload", ""},
		{"two objects", s.Token, "POST", turns, `{"text":"a"}{"text":"b"}`, 400, "invalid_payload", ""},
		{"unknown field", s.Token, "POST", turns, map[string]any{"text": "hi", "temperature": 2}, 400, "invalid_payload", "/temperature"},
		{"wrong type", s.Token, "POST", turns, map[string]any{"text": 42}, 400, "invalid_payload", "/text"},
		{"empty text", s.Token, "POST", turns, map[string]any{"text": "   "}, 400, "invalid_payload", "/text"},
		{"over-long text", s.Token, "POST", turns, map[string]any{"text": strings.Repeat("a", 20001)}, 400, "invalid_payload", "/text"},
		{"context not an object", s.Token, "POST", turns, map[string]any{"text": "hi", "context": "x"}, 400, "invalid_payload", "/context"},
		{"mention of another space", s.Token, "POST", turns, map[string]any{"text": "hi", "mentions": []any{map[string]any{"kind": "task", "id": otherTask}}}, 404, "not_found", "/mentions/0/id"},
		{"mention of an unknown kind", s.Token, "POST", turns, map[string]any{"text": "hi", "mentions": []any{map[string]any{"kind": "planet", "id": "x"}}}, 400, "invalid_payload", "/mentions/0/kind"},
		{"oversized body", s.Token, "POST", turns, `{"text": "` + strings.Repeat("a", 2<<20) + `"}`, 413, "too_large", ""},
		{"empty body", s.Token, "POST", turns, "", 400, "invalid_payload", ""},
		{"conversation of a space I cannot open", s.Token, "POST", "/api/assistant/conversations", map[string]any{"spaceId": otherSpace}, 404, "not_found", ""},
		{"someone else's conversation", otherToken, "POST", turns, map[string]any{"text": "hi"}, 404, "not_found", ""},
		{"someone else's messages", otherToken, "GET", "/api/assistant/conversations/" + conv + "/messages", nil, 404, "not_found", ""},
		{"tasks of a space I cannot open", s.Token, "GET", "/api/spaces/" + otherSpace + "/tasks", nil, 404, "not_found", ""},
		{"a task of another space by id", s.Token, "PATCH", tasks + "/" + otherTask, map[string]any{"title": "Mine now"}, 404, "not_found", ""},
		{"delete a task of another space", s.Token, "DELETE", tasks + "/" + otherTask, nil, 404, "not_found", ""},
		{"a project of another space", s.Token, "POST", tasks, map[string]any{"title": "x", "projectId": otherProject}, 404, "not_found", "/projectId"},
		{"empty title", s.Token, "POST", tasks, map[string]any{"title": ""}, 400, "invalid_payload", "/title"},
		{"bad due date", s.Token, "POST", tasks, map[string]any{"title": "x", "dueDate": "next tuesday"}, 400, "invalid_payload", "/dueDate"},
		{"bad status", s.Token, "PATCH", tasks + "/" + taskID, map[string]any{"status": "maybe"}, 400, "invalid_payload", "/status"},
		{"null title", s.Token, "PATCH", tasks + "/" + taskID, map[string]any{"title": nil}, 400, "invalid_payload", "/title"},
		{"stale revision", s.Token, "PATCH", tasks + "/" + taskID, map[string]any{"title": "x", "revision": 7}, 409, "conflict", ""},
		{"viewer writes", viewerToken, "POST", tasks, map[string]any{"title": "x"}, 403, "forbidden", ""},
		{"bad paging", s.Token, "GET", tasks + "?limit=-1", nil, 400, "invalid_payload", "/limit"},
		{"bad write policy", s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "yolo"}, 400, "invalid_payload", "/writePolicy"},
		{"unknown turn", s.Token, "GET", "/api/assistant/turns/turn_nope", nil, 404, "not_found", ""},
		{"unknown endpoint", s.Token, "GET", "/api/nope", nil, 404, "not_found", ""},
	}
	before := counts(t, s)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Do(t, tc.token, tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			e := r.JSON(t)["error"].(map[string]any)
			require.Equal(t, tc.code, e["code"], "%s", r.Body)
			require.NotEmpty(t, e["message"])
			if tc.at != "" {
				require.Equal(t, tc.at, e["path"], "%s", r.Body)
			}
		})
	}
	require.Equal(t, before, counts(t, s), "bad requests changed nothing")
	r = s.Do(t, s.Token, "GET", tasks+"/"+taskID, nil)
	require.Equal(t, "Mine", r.JSON(t)["title"])
	r = s.Do(t, otherToken, "GET", "/api/spaces/"+otherSpace+"/tasks/"+otherTask, nil)
	require.Equal(t, "Theirs", r.JSON(t)["title"])
}

func TestStreamTokenReadsOnlyItsTurn(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	conv := s.Conversation(t)
	first := s.Ask(t, conv, "one")
	s.Stream(t, first.StreamURL, 0, 0)
	second := s.Ask(t, conv, "two")
	s.Stream(t, second.StreamURL, 0, 0)

	token := first.StreamURL[strings.Index(first.StreamURL, "streamToken=")+len("streamToken="):]
	// The token reads its own turn's stream …
	r := s.Do(t, "", "GET", "/api/assistant/turns/"+first.TurnID+"/stream?streamToken="+token, nil)
	require.Equal(t, http.StatusOK, r.Status)
	// … but not another turn's, and it is no bearer token for the api.
	r = s.Do(t, "", "GET", "/api/assistant/turns/"+second.TurnID+"/stream?streamToken="+token, nil)
	require.Equal(t, http.StatusUnauthorized, r.Status)
	r = s.Do(t, token, "GET", "/api/spaces", nil)
	require.Equal(t, http.StatusUnauthorized, r.Status)
	// Another person cannot read the stream with their own token.
	other, _ := s.Member(t, "Team", "Sam Other", workspace.RoleEditor)
	r = s.Do(t, other, "GET", "/api/assistant/turns/"+first.TurnID+"/stream", nil)
	require.Equal(t, http.StatusNotFound, r.Status)
}

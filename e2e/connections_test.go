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

// Connected apps through REST: owners and editors add and remove them and
// read their URLs; a viewer sees names only; a guest sees none and cannot
// reach one by id; another space's member finds nothing.
func TestConnectionsThroughREST(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.DefaultScript()})
	base := "/api/spaces/" + s.SpaceID + "/connections"
	editor, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
	viewer, _ := s.Member(t, "Team", "Vera Viewer", workspace.RoleViewer)
	guest, _ := s.Member(t, "Team", "Gus Guest", workspace.RoleGuest)
	outsider, _ := s.Member(t, "Elsewhere", "Otto Outsider", workspace.RoleOwner)

	r := s.Do(t, s.Token, "GET", base, nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, map[string]any{"connections": []any{}}, r.JSON(t))

	r = s.Do(t, s.Token, "POST", base, map[string]any{"kind": "webhook", "name": "Team updates", "url": "https://hooks.example.com/T1/secret"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	created := r.JSON(t)
	id := created["id"].(string)
	require.Equal(t, "Team updates", created["name"])
	require.Equal(t, "webhook", created["kind"])
	require.Equal(t, "https://hooks.example.com/T1/secret", created["url"])
	require.Equal(t, true, created["enabled"])
	require.Equal(t, s.OwnerID, created["ownerId"])
	require.NotEmpty(t, created["createdAt"])

	r = s.Do(t, editor, "POST", base, map[string]any{"name": "Alerts", "url": "http://alerts.example.com/in"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	require.Equal(t, "webhook", r.JSON(t)["kind"], "kind defaults to webhook")
	alerts := r.JSON(t)["id"].(string)

	// Who sees what.
	list := func(token string) []any {
		t.Helper()
		r := s.Do(t, token, "GET", base, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.JSON(t)["connections"].([]any)
	}
	owners := list(s.Token)
	require.Len(t, owners, 2)
	require.Equal(t, "Alerts", owners[0].(map[string]any)["name"], "by name")
	require.Equal(t, "https://hooks.example.com/T1/secret", owners[1].(map[string]any)["url"])
	require.Len(t, list(editor), 2)
	for _, c := range list(viewer) {
		require.NotContains(t, c.(map[string]any), "url", "a viewer sees no URL")
		require.NotEmpty(t, c.(map[string]any)["name"])
	}
	require.Empty(t, list(guest), "a guest never uses the owner's connected apps")
	r = s.Do(t, outsider, "GET", base, nil)
	require.Equal(t, http.StatusNotFound, r.Status)

	// Bad input is a 400 at the field; a name taken (in any case) is a 409.
	for _, tc := range []struct {
		body map[string]any
		path string
	}{
		{map[string]any{"name": "x", "url": "ftp://files.example.com/in"}, "/url"},
		{map[string]any{"name": "x", "url": "not a url"}, "/url"},
		{map[string]any{"name": "x", "url": "file:///etc/passwd"}, "/url"},
		{map[string]any{"name": "x", "url": "https://user:pass@hooks.example.com/"}, "/url"},
		{map[string]any{"name": " ", "url": "https://hooks.example.com/"}, "/name"},
		{map[string]any{"kind": "email", "name": "x", "url": "https://hooks.example.com/"}, "/kind"},
		{map[string]any{"name": "x", "url": "https://hooks.example.com/", "secret": "s"}, "/secret"},
	} {
		r = s.Do(t, s.Token, "POST", base, tc.body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", tc.body, r.Body)
		e := r.JSON(t)["error"].(map[string]any)
		require.Equal(t, "invalid_payload", e["code"])
		require.Equal(t, tc.path, e["path"])
	}
	r = s.Do(t, s.Token, "POST", base, map[string]any{"name": "team UPDATES", "url": "https://other.example.com/"})
	require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
	require.Equal(t, "conflict", r.JSON(t)["error"].(map[string]any)["code"])

	// Adding: a viewer and a guest may not.
	for _, token := range []string{viewer, guest} {
		r = s.Do(t, token, "POST", base, map[string]any{"name": "Mine", "url": "https://mine.example.com/"})
		require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
	}
	r = s.Do(t, outsider, "POST", base, map[string]any{"name": "Mine", "url": "https://mine.example.com/"})
	require.Equal(t, http.StatusNotFound, r.Status)

	// Removing: a viewer may not; a guest and an outsider do not find it.
	r = s.Do(t, viewer, "DELETE", base+"/"+id, nil)
	require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
	r = s.Do(t, guest, "DELETE", base+"/"+id, nil)
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	r = s.Do(t, outsider, "DELETE", base+"/"+id, nil)
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	r = s.Do(t, editor, "DELETE", base+"/"+id, nil)
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "DELETE", base+"/"+id, nil)
	require.Equal(t, http.StatusNotFound, r.Status)
	owners = list(s.Token)
	require.Len(t, owners, 1)
	require.Equal(t, alerts, owners[0].(map[string]any)["id"])

	r = s.Do(t, "", "GET", "/api/openapi.json", nil)
	paths := r.JSON(t)["paths"].(map[string]any)
	require.Contains(t, paths, "/api/spaces/{spaceId}/connections")
	require.Contains(t, paths, "/api/spaces/{spaceId}/connections/{id}")
}

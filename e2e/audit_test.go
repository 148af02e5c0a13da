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

// The space's audit log: connected apps connected and removed, the budget
// set and removed, people added, changed and removed — newest first, with
// who did it, paged, never a webhook's URL path; owners only.
func TestSpaceAuditLog(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
		editor, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
		outsider, _ := s.Member(t, "Other", "Otto Outsider", workspace.RoleOwner)
		space := "/api/spaces/" + s.SpaceID
		do := func(method, path string, body any, want int) map[string]any {
			t.Helper()
			r := s.Do(t, s.Token, method, path, body)
			require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
			if want == http.StatusNoContent {
				return nil
			}
			return r.JSON(t)
		}
		hook := do("POST", space+"/connections", map[string]any{"kind": "webhook", "name": "Team channel",
			"url": "https://hooks.example.com/services/T000/B000/XyZsecretPath"}, http.StatusCreated)
		do("PATCH", space+"/settings", map[string]any{"monthlyBudget": 5000000}, http.StatusOK)
		do("PATCH", space+"/settings", map[string]any{"monthlyBudget": 5000000}, http.StatusOK) // no change: not recorded
		ann := do("POST", space+"/people", map[string]any{"name": "Ann Lee", "role": "viewer"}, http.StatusCreated)
		do("PATCH", space+"/people/"+ann["id"].(string), map[string]any{"role": "editor", "revision": 1}, http.StatusOK)
		do("DELETE", space+"/people/"+ann["id"].(string), nil, http.StatusNoContent)
		do("PATCH", space+"/settings", map[string]any{"monthlyBudget": nil}, http.StatusOK)
		do("DELETE", space+"/connections/"+hook["id"].(string), nil, http.StatusNoContent)

		r := s.Do(t, s.Token, "GET", space+"/audit", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.NotContains(t, string(r.Body), "XyZsecretPath", "a webhook's URL may be its secret")
		var log struct {
			Events []struct {
				ID, Via, Kind, Action, TargetID, Summary string
				Actor                                    struct{ ID, Name string }
				Changes                                  map[string]any
			}
			NextBefore string
		}
		r.Decode(t, &log)
		var got []string
		for _, e := range log.Events {
			got = append(got, e.Kind+" "+e.Action)
			require.Equal(t, "Mira Chen", e.Actor.Name, "%s", r.Body)
			require.Equal(t, "rest", e.Via)
			require.NotEmpty(t, e.Summary)
		}
		require.Equal(t, []string{"connection deleted", "space_settings updated", "person deleted", "person updated", "person created",
			"space_settings updated", "connection created"}, got, "newest first")
		require.Empty(t, log.NextBefore)
		require.Equal(t, map[string]any{"before": "viewer", "after": "editor"}, log.Events[3].Changes["role"])
		require.Equal(t, map[string]any{"before": float64(5000000), "after": nil}, log.Events[1].Changes["monthlyBudget"])
		require.Equal(t, "hooks.example.com", log.Events[0].Changes["host"])
		require.Equal(t, hook["id"], log.Events[0].TargetID)

		// Pages of 3 make the same log.
		var paged []string
		before := ""
		for {
			path := space + "/audit?limit=3"
			if before != "" {
				path += "&before=" + before
			}
			r = s.Do(t, s.Token, "GET", path, nil)
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			var p struct {
				Events     []struct{ ID string }
				NextBefore string
			}
			r.Decode(t, &p)
			for _, e := range p.Events {
				paged = append(paged, e.ID)
			}
			if p.NextBefore == "" {
				break
			}
			before = p.NextBefore
		}
		var ids []string
		for _, e := range log.Events {
			ids = append(ids, e.ID)
		}
		require.Equal(t, ids, paged)

		require.Equal(t, http.StatusForbidden, s.Do(t, editor, "GET", space+"/audit", nil).Status, "owners only")
		require.Equal(t, http.StatusNotFound, s.Do(t, outsider, "GET", space+"/audit", nil).Status)
		for path, at := range map[string]string{"?limit=500": "/limit", "?limit=x": "/limit", "?before=audit_nope": "/before"} {
			r = s.Do(t, s.Token, "GET", space+"/audit"+path, nil)
			require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", path, r.Body)
			require.Equal(t, at, r.JSON(t)["error"].(map[string]any)["path"], path)
		}
	})
}

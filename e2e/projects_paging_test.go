//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/hubtest"
	"hub/storage"
)

// GET /api/spaces/:spaceId/projects pages like the task list: limit (≤ 200,
// default 50), offset, total and nextOffset, past 200 projects.
func TestProjectsPageThroughREST(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{NoModel: true})
	rows := make([]storage.Project, 0, 230)
	for i := 230; i >= 1; i-- {
		status := "active"
		if i > 225 {
			status = "paused"
		}
		rows = append(rows, storage.Project{ID: storage.NewID("proj"), SpaceID: s.SpaceID, Name: fmt.Sprintf("Project %03d", i),
			Status: status, Revision: 1, CreatedBy: s.OwnerID})
	}
	require.NoError(t, s.DB.WithContext(t.Context()).CreateInBatches(rows, 100).Error)
	projects := "/api/spaces/" + s.SpaceID + "/projects"

	type page struct {
		Projects []struct {
			ID, Name, Status string
		}
		Total      int
		NextOffset *int
	}
	get := func(query string) page {
		t.Helper()
		r := s.Do(t, s.Token, "GET", projects+query, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var p page
		r.Decode(t, &p)
		return p
	}

	p := get("")
	require.Len(t, p.Projects, 50, "50 by default")
	require.Equal(t, 230, p.Total)
	require.Equal(t, 50, *p.NextOffset)
	require.Equal(t, "Project 001", p.Projects[0].Name, "by name")

	seen := map[string]bool{}
	for offset := 0; ; {
		p := get(fmt.Sprintf("?limit=200&offset=%d", offset))
		for _, pr := range p.Projects {
			require.False(t, seen[pr.ID], "%s twice", pr.Name)
			seen[pr.ID] = true
		}
		if p.NextOffset == nil {
			break
		}
		offset = *p.NextOffset
	}
	require.Len(t, seen, 230, "every project, past 200")

	p = get("?status=paused&q=project&limit=2&offset=2")
	require.Equal(t, 5, p.Total)
	require.Equal(t, "Project 228", p.Projects[0].Name)
	require.Equal(t, 4, *p.NextOffset)
	p = get("?limit=1000")
	require.Len(t, p.Projects, 200, "a larger limit is 200")
	p = get("?offset=400")
	require.Empty(t, p.Projects)
	require.Nil(t, p.NextOffset)
	require.Equal(t, 230, p.Total)

	for _, tc := range []struct{ query, path string }{
		{"?limit=-1", "/limit"},
		{"?limit=ten", "/limit"},
		{"?limit=1.5", "/limit"},
		{"?offset=-5", "/offset"},
		{"?offset=99999999999999999999", "/offset"},
		{"?status=archived", "/status"},
	} {
		r := s.Do(t, s.Token, "GET", projects+tc.query, nil)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", tc.query, r.Body)
		e := r.JSON(t)["error"].(map[string]any)
		require.Equal(t, "invalid_payload", e["code"], tc.query)
		require.Equal(t, tc.path, e["path"], tc.query)
		require.NotEmpty(t, e["message"], tc.query)
	}
}

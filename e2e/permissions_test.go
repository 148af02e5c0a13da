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

// TestPermissionMatrixThroughTurns runs a turn that writes for every role ×
// write policy and checks what happened: a viewer's write never runs (it is
// not offered, so the model's call is unknown_tool); the others' writes run
// under immediate and are held under preview and needs-me.
func TestPermissionMatrixThroughTurns(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(createThenAnswer)})
	roles := map[workspace.Role]string{workspace.RoleOwner: s.Token}
	for _, r := range []workspace.Role{workspace.RoleEditor, workspace.RoleViewer, workspace.RoleGuest} {
		roles[r], _ = s.Member(t, "Team", "Person "+string(r), r)
	}
	created := 0
	for _, role := range []workspace.Role{workspace.RoleOwner, workspace.RoleEditor, workspace.RoleViewer, workspace.RoleGuest} {
		token := roles[role]
		for _, policy := range []string{"immediate", "preview", "needs-me"} {
			t.Run(string(role)+"/"+policy, func(t *testing.T) {
				r := s.Do(t, token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": policy})
				require.Equal(t, http.StatusOK, r.Status)
				r = s.Do(t, token, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
				require.Equal(t, http.StatusCreated, r.Status)
				r = s.Do(t, token, "POST", "/api/assistant/conversations/"+r.JSON(t)["id"].(string)+"/turns", map[string]any{"text": "add a task"})
				require.Equal(t, http.StatusAccepted, r.Status)
				var st hubtest.Started
				r.Decode(t, &st)
				phase := ""
				for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
					if e.Type == "tool" && e.Data["phase"] != "started" {
						phase = e.Data["phase"].(string)
					}
				}
				want := map[string]string{"immediate": "done", "preview": "held", "needs-me": "held"}[policy]
				if role == workspace.RoleViewer {
					want = "failed"
				}
				require.Equal(t, want, phase)
				if want == "done" {
					created++
				}
				r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
				require.Len(t, r.JSON(t)["tasks"], created, "only immediate writes of writers change records")
			})
		}
	}
}

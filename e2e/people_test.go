//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

// The people of a space: POST/GET/PATCH/DELETE /api/spaces/:spaceId/people,
// and the assistant's hub_add_person, hub_update_person and
// hub_remove_person on the same service path.

// requireRefused checks an error answer's status, code and path.
func requireRefused(t *testing.T, r hubtest.Response, status int, code, path string, what ...any) {
	t.Helper()
	require.Equal(t, status, r.Status, "%v: %s", what, r.Body)
	gotCode, gotPath := errorOf(t, r)
	require.Equal(t, code, gotCode, "%v: %s", what, r.Body)
	if path != "-" {
		require.Equal(t, path, gotPath, "%v: %s", what, r.Body)
	}
}

func TestPeopleRoutes(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
		editor, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
		viewer, _ := s.Member(t, "Team", "Vera Viewer", workspace.RoleViewer)
		outsider, otherSpace := s.Member(t, "Other", "Otto Outsider", workspace.RoleOwner)
		_, _ = s.Member(t, "Elsewhere", "Eddie Editor", workspace.RoleEditor)
		eddie, vera := personID(t, s, s.SpaceID, "Eddie Editor"), personID(t, s, s.SpaceID, "Vera Viewer")
		people := "/api/spaces/" + s.SpaceID + "/people"
		otto := s.Do(t, outsider, "GET", "/api/spaces/"+otherSpace+"/people", nil).JSON(t)["people"].([]any)[0].(map[string]any)["id"].(string)
		count := func() int { return len(s.Do(t, s.Token, "GET", people, nil).JSON(t)["people"].([]any)) }
		require.Equal(t, 3, count())

		// An owner adds a new person; the role defaults to editor.
		r := s.Do(t, s.Token, "POST", people, map[string]any{"name": "  Ann Lee "})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		ann := r.JSON(t)
		require.Equal(t, "Ann Lee", ann["name"])
		require.Equal(t, "editor", ann["role"], "the default role")
		require.Nil(t, ann["firstName"])
		require.Equal(t, float64(1), ann["revision"])
		require.NotEmpty(t, ann["joinedAt"])
		annID := ann["id"].(string)
		r = s.Do(t, s.Token, "POST", people, map[string]any{"name": "Bo Berg", "firstName": "Bo", "role": "viewer"})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		require.Equal(t, "Bo", r.JSON(t)["firstName"])
		require.Equal(t, 5, count())
		r = s.Do(t, s.Token, "GET", people+"/"+annID, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, ann, r.JSON(t), "GET answers what POST did")
		r = s.Do(t, viewer, "GET", people+"/"+annID, nil)
		require.Equal(t, http.StatusOK, r.Status, "every member reads the people: %s", r.Body)

		// Bad input: 400 at its path, nothing added.
		for _, c := range []struct {
			body any
			path string
		}{
			{map[string]any{}, "/name"},
			{map[string]any{"name": "   "}, "/name"},
			{map[string]any{"name": "a\x00b"}, "/name"},
			{`{"name": "a\u0000b"}`, "/name"},
			{map[string]any{"name": 3}, "/name"},
			{map[string]any{"name": []any{"Ann"}}, "/name"},
			{map[string]any{"name": "Ann\nLee"}, "/name"},
			{map[string]any{"name": strings.Repeat("a", 201)}, "/name"},
			{map[string]any{"name": "Cy", "role": "admin"}, "/role"},
			{map[string]any{"name": "Cy", "role": 1}, "/role"},
			{map[string]any{"name": "Cy", "firstName": "two words"}, "/firstName"},
			{map[string]any{"name": "Cy", "firstName": "C\x00"}, "/firstName"},
			{map[string]any{"name": "Cy", "personId": eddie}, "/personId"},
			{map[string]any{"name": "Cy", "zz": 1}, "/zz"},
		} {
			requireRefused(t, s.Do(t, s.Token, "POST", people, c.body), http.StatusBadRequest, "invalid_payload", c.path, c.body)
		}
		// Someone the owner shares no space with is not found, by id.
		requireRefused(t, s.Do(t, s.Token, "POST", people, map[string]any{"personId": otto}), http.StatusNotFound, "not_found", "/personId")
		requireRefused(t, s.Do(t, s.Token, "POST", people, map[string]any{"personId": "person_nobody"}), http.StatusNotFound, "not_found", "/personId")
		// Someone in the space already is a conflict.
		requireRefused(t, s.Do(t, s.Token, "POST", people, map[string]any{"personId": eddie}), http.StatusConflict, "conflict", "-")
		// Only owners add people.
		requireRefused(t, s.Do(t, editor, "POST", people, map[string]any{"name": "Cy"}), http.StatusForbidden, "forbidden", "-")
		requireRefused(t, s.Do(t, viewer, "POST", people, map[string]any{"name": "Cy", "role": "owner"}), http.StatusForbidden, "forbidden", "-")
		requireRefused(t, s.Do(t, outsider, "POST", people, map[string]any{"name": "Cy"}), http.StatusNotFound, "not_found", "-")
		require.Equal(t, 5, count(), "nothing refused was added")

		// Another space's person is not found here, whatever the route.
		for _, m := range []string{"GET", "PATCH", "DELETE"} {
			requireRefused(t, s.Do(t, s.Token, m, people+"/"+otto, map[string]any{"role": "viewer"}), http.StatusNotFound, "not_found", "-", m)
			requireRefused(t, s.Do(t, outsider, m, people+"/"+annID, map[string]any{"role": "viewer"}), http.StatusNotFound, "not_found", "-", m)
		}
		r = s.Do(t, outsider, "GET", "/api/spaces/"+otherSpace+"/people/"+otto, nil)
		require.Equal(t, "owner", r.JSON(t)["role"], "unchanged")

		// PATCH: bad input at its path; a stale revision is a conflict.
		for _, c := range []struct {
			body any
			path string
		}{
			{map[string]any{"role": "admin"}, "/role"},
			{map[string]any{"role": nil}, "/role"},
			{map[string]any{"name": nil}, "/name"},
			{map[string]any{"name": ""}, "/name"},
			{map[string]any{"name": "A\x00"}, "/name"},
			{map[string]any{"revision": "1", "role": "viewer"}, "/revision"},
			{map[string]any{"revision": nil, "role": "viewer"}, "/revision"},
			{map[string]any{"firstName": 5}, "/firstName"},
			{map[string]any{}, ""},
		} {
			requireRefused(t, s.Do(t, s.Token, "PATCH", people+"/"+annID, c.body), http.StatusBadRequest, "invalid_payload", c.path, c.body)
		}
		requireRefused(t, s.Do(t, s.Token, "PATCH", people+"/"+annID, map[string]any{"role": "viewer", "revision": 7}), http.StatusConflict, "conflict", "-")
		r = s.Do(t, s.Token, "PATCH", people+"/"+annID, map[string]any{"role": "viewer", "name": "Ann Lee-Berg", "firstName": "Annie", "revision": 1})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		got := r.JSON(t)
		require.Equal(t, []any{"viewer", "Ann Lee-Berg", "Annie", float64(2)}, []any{got["role"], got["name"], got["firstName"], got["revision"]})
		requireRefused(t, s.Do(t, s.Token, "PATCH", people+"/"+annID, map[string]any{"role": "editor", "revision": 1}), http.StatusConflict, "conflict", "-",
			"the revision read before the change is stale now")
		r = s.Do(t, s.Token, "PATCH", people+"/"+annID, map[string]any{"firstName": nil})
		require.Equal(t, http.StatusOK, r.Status, "null clears the first name: %s", r.Body)
		require.Nil(t, r.JSON(t)["firstName"])

		// Who may change what.
		requireRefused(t, s.Do(t, editor, "PATCH", people+"/"+vera, map[string]any{"role": "viewer"}), http.StatusForbidden, "forbidden", "-")
		requireRefused(t, s.Do(t, viewer, "PATCH", people+"/"+vera, map[string]any{"role": "owner"}), http.StatusForbidden, "forbidden", "-",
			"a viewer cannot promote themselves")
		requireRefused(t, s.Do(t, s.Token, "PATCH", people+"/"+eddie, map[string]any{"name": "Ed"}), http.StatusForbidden, "forbidden", "-",
			"Eddie is in another space too: his name is his")
		r = s.Do(t, editor, "PATCH", people+"/"+eddie, map[string]any{"name": "Eddie E. Editor"})
		require.Equal(t, http.StatusOK, r.Status, "anyone renames themselves: %s", r.Body)
		require.Equal(t, "editor", r.JSON(t)["role"])
		requireRefused(t, s.Do(t, s.Token, "PATCH", people+"/"+s.OwnerID, map[string]any{"role": "editor"}), http.StatusConflict, "conflict", "-",
			"the last owner cannot step down")

		// DELETE: only owners remove others; the last owner stays.
		requireRefused(t, s.Do(t, editor, "DELETE", people+"/"+vera, nil), http.StatusForbidden, "forbidden", "-")
		requireRefused(t, s.Do(t, viewer, "DELETE", people+"/"+eddie, nil), http.StatusForbidden, "forbidden", "-")
		requireRefused(t, s.Do(t, s.Token, "DELETE", people+"/"+s.OwnerID, nil), http.StatusConflict, "conflict", "-", "the last owner")
		requireRefused(t, s.Do(t, s.Token, "DELETE", people+"/person_nobody", nil), http.StatusNotFound, "not_found", "-")
		require.Equal(t, 5, count())

		// Removing someone ends their access here, not elsewhere, and keeps
		// the person: an owner can add them back by id.
		r = s.Do(t, s.Token, "DELETE", people+"/"+eddie, nil)
		require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
		requireRefused(t, s.Do(t, editor, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil), http.StatusNotFound, "not_found", "-")
		requireRefused(t, s.Do(t, editor, "GET", people, nil), http.StatusNotFound, "not_found", "-")
		requireRefused(t, s.Do(t, s.Token, "GET", people+"/"+eddie, nil), http.StatusNotFound, "not_found", "-")
		requireRefused(t, s.Do(t, s.Token, "DELETE", people+"/"+eddie, nil), http.StatusNotFound, "not_found", "-", "removed once")
		require.Len(t, s.Do(t, editor, "GET", "/api/spaces", nil).JSON(t)["spaces"], 1, "his other space stays")
		// The owner shares no space with him now, so he is not found by id…
		requireRefused(t, s.Do(t, s.Token, "POST", people, map[string]any{"personId": eddie}), http.StatusNotFound, "not_found", "/personId")
		// …but someone the owner shares a space with is.
		ownerName := s.Do(t, s.Token, "GET", people+"/"+s.OwnerID, nil).JSON(t)["name"].(string)
		_, _ = s.Member(t, "Elsewhere", ownerName, workspace.RoleOwner)
		r = s.Do(t, s.Token, "POST", people, map[string]any{"personId": eddie, "role": "guest"})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		require.Equal(t, "guest", r.JSON(t)["role"])
		require.Equal(t, http.StatusOK, s.Do(t, editor, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).Status, "back in, as a guest")

		// A member leaves through the people route too.
		r = s.Do(t, viewer, "DELETE", people+"/"+vera, nil)
		require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
		requireRefused(t, s.Do(t, viewer, "GET", people, nil), http.StatusNotFound, "not_found", "-")
	})
}

// peopleApply is an Apply's answer with each receipt's Undo group.
type peopleApply struct {
	Receipts []struct{ Status, Summary, UndoGroupID string }
}

func applyPeople(t *testing.T, s *hubtest.Stack, conv, reply string) peopleApply {
	t.Helper()
	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var a peopleApply
	r.Decode(t, &a)
	return a
}

// TestAssistantAddsAndRemovesPeople: an add, a removal and a role change
// all wait for Apply even under the immediate policy; Undo of either puts
// the membership back as it was.
func TestAssistantAddsAndRemovesPeople(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"match": {"lastUser": "\\badd ([A-Z][a-z]+ [A-Z][a-z]+) as (\\w+)", "afterToolResult": false},
	   "reply": {"toolCalls": [{"name": "hub_add_person", "arguments": {"name": "{{index .Groups 1}}", "role": "{{index .Groups 2}}"}}]}},
	  {"match": {"lastUser": "\\bremove (person_\\w+)", "afterToolResult": false},
	   "reply": {"toolCalls": [{"name": "hub_remove_person", "arguments": {"id": "{{index .Groups 1}}"}}]}},
	  {"match": {"lastUser": "\\bpromote (person_\\w+)", "afterToolResult": false},
	   "reply": {"toolCalls": [{"name": "hub_update_person", "arguments": {"id": "{{index .Groups 1}}", "role": "owner", "revision": 1}}]}},
	  {"reply": {"text": "{{.LastToolSummary}}"}}]}`)})
	people := "/api/spaces/" + s.SpaceID + "/people"
	names := func() []string {
		var out []string
		for _, p := range s.Do(t, s.Token, "GET", people, nil).JSON(t)["people"].([]any) {
			p := p.(map[string]any)
			out = append(out, fmt.Sprintf("%s:%s", p["name"], p["role"]))
		}
		return out
	}
	owner := names()[0]
	conv := s.Conversation(t)

	// Even under immediate an add waits for Apply (someone gains access),
	// then lands with an Undo group.
	st := s.Ask(t, conv, "add Ann Lee as viewer")
	var proposed map[string]any
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] == "held" {
			proposed = e.Data
		}
	}
	require.NotNil(t, proposed, "the add is held")
	require.Equal(t, "Add “Ann Lee” to this space as viewer.", proposed["summary"])
	require.Equal(t, []string{owner}, names(), "nobody is added before Apply")
	added := applyPeople(t, s, conv, st.ReplyMessageID)
	require.Len(t, added.Receipts, 1)
	require.Equal(t, "succeeded", added.Receipts[0].Status, "%+v", added.Receipts[0])
	group := added.Receipts[0].UndoGroupID
	require.NotEmpty(t, group, "the add comes with an Undo group")
	require.ElementsMatch(t, []string{"Ann Lee:viewer", owner}, names())
	annID := personID(t, s, s.SpaceID, "Ann Lee")
	r := s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, []string{owner}, names(), "Undo takes the added person out")
	r = s.Do(t, s.Token, "POST", "/api/assistant/redo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.ElementsMatch(t, []string{"Ann Lee:viewer", owner}, names(), "Redo puts them back")
	token, err := s.Workspace.CreateToken(context.Background(), annID, "", 0)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, s.Do(t, token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).Status, "the added person reads the space")

	// A removal waits for Apply, though the policy is immediate.
	st = s.Ask(t, conv, "remove "+annID)
	var held map[string]any
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] == "held" {
			held = e.Data
		}
	}
	require.NotNil(t, held, "the removal is held")
	require.Equal(t, "Remove “Ann Lee” (viewer) from this space: they lose access to it.", held["summary"])
	require.ElementsMatch(t, []string{"Ann Lee:viewer", owner}, names(), "nothing changes before Apply")
	a := applyPeople(t, s, conv, st.ReplyMessageID)
	require.Len(t, a.Receipts, 1)
	require.Equal(t, "succeeded", a.Receipts[0].Status, "%+v", a.Receipts[0])
	require.NotEmpty(t, a.Receipts[0].UndoGroupID)
	require.Equal(t, []string{owner}, names(), "applied: Ann is out")
	require.Equal(t, http.StatusNotFound, s.Do(t, token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).Status, "and reads nothing of the space")
	r = s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": a.Receipts[0].UndoGroupID})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.ElementsMatch(t, []string{"Ann Lee:viewer", owner}, names(), "Undo brings her back with her role")
	require.Equal(t, http.StatusOK, s.Do(t, token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).Status)
	r = s.Do(t, s.Token, "GET", people+"/"+annID, nil)
	require.Greater(t, r.JSON(t)["revision"].(float64), float64(1), "a restored record continues its revisions")

	// A role change waits for Apply too; its revision is checked when it runs.
	st = s.Ask(t, conv, "promote "+annID)
	held = nil
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] == "held" {
			held = e.Data
		}
	}
	require.NotNil(t, held, "the role change is held")
	require.Equal(t, "Change “Ann Lee”: role viewer → owner.", held["summary"])
	a = applyPeople(t, s, conv, st.ReplyMessageID)
	require.Len(t, a.Receipts, 1)
	require.NotEqual(t, "succeeded", a.Receipts[0].Status, "revision 1 is stale after the removal and its Undo")
	require.ElementsMatch(t, []string{"Ann Lee:viewer", owner}, names())

	// Under the preview policy an add waits for Apply too, then lands.
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	st = s.Ask(t, conv, "add Cy Young as guest")
	held = nil
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] == "held" {
			held = e.Data
		}
	}
	require.NotNil(t, held, "held under preview")
	require.Equal(t, "Add “Cy Young” to this space as guest.", held["summary"])
	require.NotContains(t, names(), "Cy Young:guest")
	a = applyPeople(t, s, conv, st.ReplyMessageID)
	require.Len(t, a.Receipts, 1)
	require.Equal(t, "succeeded", a.Receipts[0].Status, "%+v", a.Receipts[0])
	require.Contains(t, names(), "Cy Young:guest")

	// Someone who is no owner is not offered the people writes.
	editor, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
	r = s.Do(t, editor, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	st = askAs(t, s, editor, r.JSON(t)["id"].(string), "add Cy Young as owner")
	var failed map[string]any
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] == "failed" {
			failed = e.Data
		}
	}
	require.NotNil(t, failed, "the call of a tool not offered fails")
	require.Len(t, names(), 4, "nobody was added: Ann, Cy, Eddie and the owner")
}

// TestAnAppliedRemovalEndsTheRemovedPersonsPausedTurn: the aftermath of a
// removal follows hub_remove_person's Apply too (it commits in the worker):
// the removed person's paused turn is resumed and ends at once with
// forbidden, instead of waiting paused until its time limit.
func TestAnAppliedRemovalEndsTheRemovedPersonsPausedTurn(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"match": {"lastUser": "\\bremove (person_\\w+)", "afterToolResult": false},
	   "reply": {"toolCalls": [{"name": "hub_remove_person", "arguments": {"id": "{{index .Groups 1}}"}}]}},
	  {"match": {"afterToolResult": true}, "reply": {"text": "{{.LastToolSummary}}"}},
	  {"reply": {"fault": {"kind": "hang"}}}]}`)})
	eddie, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
	eddieID := personID(t, s, s.SpaceID, "Eddie Editor")
	r := s.Do(t, eddie, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	paused := askAs(t, s, eddie, r.JSON(t)["id"].(string), "hello")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 1 && r[0].HeadersAt != nil })
	require.NoError(t, err)
	r = s.Do(t, eddie, "POST", "/api/assistant/turns/"+paused.TurnID+"/pause", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	awaitDisconnect(t, s, 1)

	conv := s.Conversation(t)
	st := s.Ask(t, conv, "remove "+eddieID)
	s.Stream(t, st.StreamURL, 0, 0)
	turn, _, err := s.Chat.GetTurn(ctx, paused.TurnID)
	require.NoError(t, err)
	require.Equal(t, "paused", string(turn.Status), "held: nothing happened yet")
	a := applyPeople(t, s, conv, st.ReplyMessageID)
	require.Len(t, a.Receipts, 1)
	require.Equal(t, "succeeded", a.Receipts[0].Status, "%+v", a.Receipts[0])
	require.Eventually(t, func() bool {
		turn, _, err := s.Chat.GetTurn(ctx, paused.TurnID)
		return err == nil && turn.Status.Final()
	}, 30*time.Second, 20*time.Millisecond)
	turn, _, err = s.Chat.GetTurn(ctx, paused.TurnID)
	require.NoError(t, err)
	require.Equal(t, "error", string(turn.Status))
	require.Equal(t, "forbidden", turn.ErrorCode)
}

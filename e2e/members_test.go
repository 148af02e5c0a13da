//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/activities"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

// Removing a member: DELETE and PATCH /api/spaces/:spaceId/members/:personId,
// and what a person who left a space can still read of it (nothing).

// personID finds a member of a space by name, as its owner lists them.
func personID(t *testing.T, s *hubtest.Stack, spaceID, name string) string {
	t.Helper()
	r := s.Do(t, s.Token, "GET", "/api/spaces/"+spaceID+"/people", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	for _, p := range r.JSON(t)["people"].([]any) {
		if p := p.(map[string]any); p["name"] == name {
			return p["id"].(string)
		}
	}
	t.Fatalf("no %s in %s", name, spaceID)
	return ""
}

// errorOf is an error answer's code and path.
func errorOf(t *testing.T, r hubtest.Response) (code, path string) {
	t.Helper()
	e := r.JSON(t)["error"].(map[string]any)
	code, _ = e["code"].(string)
	path, _ = e["path"].(string)
	return code, path
}

func TestMemberRemovalAndRoles(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	editor, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
	viewer, _ := s.Member(t, "Team", "Vera Viewer", workspace.RoleViewer)
	outsider, _ := s.Member(t, "Other", "Otto Outsider", workspace.RoleOwner)
	_, elsewhere := s.Member(t, "Elsewhere", "Eddie Editor", workspace.RoleEditor)
	eddie, vera := personID(t, s, s.SpaceID, "Eddie Editor"), personID(t, s, s.SpaceID, "Vera Viewer")
	members := "/api/spaces/" + s.SpaceID + "/members/"

	// Refused, and nothing changes.
	r := s.Do(t, editor, "DELETE", members+vera, nil)
	require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
	r = s.Do(t, viewer, "PATCH", members+vera, map[string]any{"role": "owner"})
	require.Equal(t, http.StatusForbidden, r.Status, "a viewer cannot promote themselves: %s", r.Body)
	r = s.Do(t, outsider, "DELETE", members+vera, nil)
	require.Equal(t, http.StatusNotFound, r.Status, "someone who cannot open the space: %s", r.Body)
	r = s.Do(t, outsider, "PATCH", members+vera, map[string]any{"role": "editor"})
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "DELETE", members+"person_nobody", nil)
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "PATCH", members+"person_nobody", map[string]any{"role": "editor"})
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	for _, body := range []any{map[string]any{"role": "admin"}, map[string]any{}, map[string]any{"role": 3}, map[string]any{"role": nil}} {
		r = s.Do(t, s.Token, "PATCH", members+vera, body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", body, r.Body)
		code, path := errorOf(t, r)
		require.Equal(t, "invalid_payload", code)
		require.Equal(t, "/role", path, "%v", body)
	}
	r = s.Do(t, s.Token, "PATCH", members+s.OwnerID, map[string]any{"role": "editor"})
	require.Equal(t, http.StatusConflict, r.Status, "the last owner cannot step down: %s", r.Body)
	r = s.Do(t, s.Token, "DELETE", members+s.OwnerID, nil)
	require.Equal(t, http.StatusConflict, r.Status, "the last owner cannot leave: %s", r.Body)
	code, _ := errorOf(t, r)
	require.Equal(t, "conflict", code)
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/people", nil).JSON(t)["people"], 3)

	// An owner changes a role.
	r = s.Do(t, s.Token, "PATCH", members+vera, map[string]any{"role": "editor"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	got := r.JSON(t)
	require.NotEmpty(t, got["joinedAt"])
	delete(got, "joinedAt")
	require.Equal(t, map[string]any{"id": vera, "name": "Vera Viewer", "firstName": nil, "role": "editor", "revision": float64(2)}, got,
		"the member as GET …/people/:id answers them")
	r = s.Do(t, viewer, "POST", "/api/spaces/"+s.SpaceID+"/tasks", map[string]any{"title": "Now I write"})
	require.Equal(t, http.StatusCreated, r.Status, "the new role counts at once: %s", r.Body)

	// A member leaves.
	r = s.Do(t, viewer, "DELETE", members+vera, nil)
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	r = s.Do(t, viewer, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)

	// An owner removes one; the person's token still opens their other spaces.
	r = s.Do(t, s.Token, "DELETE", members+eddie, nil)
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "DELETE", members+eddie, nil)
	require.Equal(t, http.StatusNotFound, r.Status, "removed once: %s", r.Body)
	r = s.Do(t, editor, "GET", "/api/spaces", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, []any{map[string]any{"id": elsewhere, "name": "Elsewhere", "role": "editor"}}, r.JSON(t)["spaces"])
	r = s.Do(t, editor, "GET", "/api/spaces/"+elsewhere+"/tasks", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	r = s.Do(t, editor, "GET", "/api/spaces/"+s.SpaceID+"/people", nil)
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/people", nil).JSON(t)["people"], 1)
}

// askAs starts a turn as the token's person.
func askAs(t *testing.T, s *hubtest.Stack, token, conv, text string) hubtest.Started {
	t.Helper()
	r := s.Do(t, token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": text})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	return st
}

// TestARemovedMemberReadsNothingOfTheSpace: after the membership is removed,
// every read of the person's conversations, messages, turns, streams,
// Applies, Undo groups, Needs me list and top bar in that space answers as
// if it never existed; their token keeps working elsewhere.
func TestARemovedMemberReadsNothingOfTheSpace(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		removedMemberReadsNothing(t, hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(createThenAnswer)}))
	})
}

func removedMemberReadsNothing(t *testing.T, s *hubtest.Stack) {
	eddie, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
	_, elsewhere := s.Member(t, "Elsewhere", "Eddie Editor", workspace.RoleEditor)
	eddieID := personID(t, s, s.SpaceID, "Eddie Editor")

	r := s.Do(t, eddie, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID, "title": "Launch plans"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	conv := r.JSON(t)["id"].(string)
	// An immediate write (an Undo group), one held for Apply, one on Needs me.
	done := askAs(t, s, eddie, conv, "add a task")
	group := ""
	for _, e := range s.Stream(t, done.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] == "done" {
			group, _ = e.Data["undoGroupId"].(string)
		}
	}
	require.NotEmpty(t, group)
	require.Equal(t, http.StatusOK, s.Do(t, eddie, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"}).Status)
	held := askAs(t, s, eddie, conv, "add a task")
	s.Stream(t, held.StreamURL, 0, 0)
	require.Equal(t, http.StatusOK, s.Do(t, eddie, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "needs-me"}).Status)
	needs := askAs(t, s, eddie, conv, "add a task")
	s.Stream(t, needs.StreamURL, 0, 0)

	// Before: all of it reads.
	require.Equal(t, http.StatusOK, s.Do(t, eddie, "GET", "/api/assistant/conversations/"+conv+"/messages", nil).Status)
	require.Equal(t, http.StatusOK, s.Do(t, eddie, "GET", "/api/assistant/turns/"+done.TurnID, nil).Status)
	require.Len(t, s.Do(t, eddie, "GET", "/api/assistant/needs-me", nil).JSON(t)["items"], 1)
	require.Len(t, s.Do(t, eddie, "GET", "/api/agent/state", nil).JSON(t)["activities"], 1, "the held Apply")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	live := s.OpenEvents(ctx, t, s.URL+"/api/agent/stream", eddie, "")
	defer live.Close()
	snap, err := live.Next()
	require.NoError(t, err)
	acts := snap.Data["activities"].([]any)
	require.Len(t, acts, 1)
	applyID := acts[0].(map[string]any)["id"]

	r = s.Do(t, s.Token, "DELETE", "/api/spaces/"+s.SpaceID+"/members/"+eddieID, nil)
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	// A top bar following his activity stream drops the held Apply at once,
	// told nothing but ids.
	e, err := live.Next()
	require.NoError(t, err)
	require.Equal(t, map[string]any{"id": applyID, "kind": "apply", "conversationId": conv, "status": "done",
		"startedAt": "0001-01-01T00:00:00Z", "title": "", "ended": true}, e.Data["activity"])

	gone := []struct{ method, path string }{
		{"GET", "/api/assistant/conversations?spaceId=" + s.SpaceID},
		{"GET", "/api/assistant/conversations/" + conv + "/messages"},
		{"DELETE", "/api/assistant/conversations/" + conv},
		{"POST", "/api/assistant/conversations/" + conv + "/turns"},
		{"GET", "/api/assistant/turns/" + done.TurnID},
		{"GET", "/api/assistant/turns/" + held.TurnID},
		{"GET", "/api/assistant/turns/" + done.TurnID + "/stream"},
		{"POST", "/api/assistant/turns/" + done.TurnID + "/retry"},
		{"POST", "/api/assistant/turns/" + done.TurnID + "/stop"},
		{"POST", "/api/assistant/turns/" + done.TurnID + "/pause"},
		{"POST", "/api/assistant/turns/" + done.TurnID + "/resume"},
		{"POST", "/api/assistant/apply"},
		{"POST", "/api/assistant/undo"},
		{"POST", "/api/assistant/redo"},
	}
	bodies := map[string]any{
		"/api/assistant/conversations/" + conv + "/turns": map[string]any{"text": "hello"},
		"/api/assistant/apply":                            map[string]any{"conversationId": conv, "messageId": held.ReplyMessageID},
		"/api/assistant/undo":                             map[string]any{"undoGroupId": group},
		"/api/assistant/redo":                             map[string]any{"undoGroupId": group},
	}
	for _, g := range gone {
		r := s.Do(t, eddie, g.method, g.path, bodies[g.path])
		require.Equal(t, http.StatusNotFound, r.Status, "%s %s: %s", g.method, g.path, r.Body)
		require.NotContains(t, string(r.Body), "Launch plans", "%s %s", g.method, g.path)
	}
	// The stream token made for the turn is his too, and no more use here.
	r = s.Do(t, "", "GET", held.StreamURL, nil)
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	require.Empty(t, s.Do(t, eddie, "GET", "/api/assistant/needs-me", nil).JSON(t)["items"])
	state := s.Do(t, eddie, "GET", "/api/agent/state", nil).JSON(t)
	require.Empty(t, state["activities"])
	es := s.OpenEvents(ctx, t, s.URL+"/api/agent/stream", eddie, "")
	snap, err = es.Next()
	es.Close()
	require.NoError(t, err)
	require.Equal(t, true, snap.Data["snapshot"])
	require.Empty(t, snap.Data["activities"], "the snapshot shows nothing of the space he left")
	// Nothing of it was changed by the refused requests.
	require.Equal(t, []string{"Draft brief"}, titlesIn(t, s, s.Token, s.SpaceID))

	// His token is still his, for the spaces he belongs to.
	r = s.Do(t, eddie, "POST", "/api/assistant/conversations", map[string]any{"spaceId": elsewhere})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	there := r.JSON(t)["id"].(string)
	require.Equal(t, http.StatusOK, s.Do(t, eddie, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "immediate"}).Status)
	s.Stream(t, askAs(t, s, eddie, there, "add a task").StreamURL, 0, 0)
	require.Equal(t, []string{"Draft brief"}, titlesIn(t, s, eddie, elsewhere))

	// Resuming his activity stream from its start replays the space's
	// frames only as ended, with nothing but ids; then the new turn's.
	es = s.OpenEvents(ctx, t, s.URL+"/api/agent/stream", eddie, "0")
	for {
		e, err := es.Next()
		require.NoError(t, err)
		require.Nil(t, e.Data["snapshot"], "a resume, not a snapshot: %v", e.Data)
		a := e.Data["activity"].(map[string]any)
		if a["conversationId"] == there {
			require.Equal(t, "add a task", a["title"], "%v", a)
			break
		}
		require.Equal(t, conv, a["conversationId"], "%v", a)
		require.Equal(t, true, a["ended"], "%v", a)
		require.Empty(t, a["title"], "%v", a)
	}
	es.Close()

	// Asked back in, he finds his conversations again.
	s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
	r = s.Do(t, eddie, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
}

// TestARemovedMembersRunningTurnEndsAtItsNextStep: the member is removed
// while the model prepares a write; the write it asks for is refused
// (nothing is written), the model is not called again, and the turn ends
// with error code forbidden. The stream opened before the removal tells
// its ending.
func TestARemovedMembersRunningTurnEndsAtItsNextStep(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		removedMembersTurnEnds(t, hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(`{"rules": [
		  {"match": {"afterToolResult": false}, "reply": {"firstTokenDelay": "3s",
		    "toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Draft brief"}]}}]}},
		  {"reply": {"text": "{{.LastToolSummary}}"}}
		]}`)}))
	})
}

func removedMembersTurnEnds(t *testing.T, s *hubtest.Stack) {
	eddie, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
	eddieID := personID(t, s, s.SpaceID, "Eddie Editor")
	r := s.Do(t, eddie, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	st := askAs(t, s, eddie, r.JSON(t)["id"].(string), "add a task")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	es := s.OpenEvents(ctx, t, s.URL+st.StreamURL, "", "")
	defer es.Close()
	_, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 1 })
	require.NoError(t, err)
	r = s.Do(t, s.Token, "DELETE", "/api/spaces/"+s.SpaceID+"/members/"+eddieID, nil)
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)

	var events []hubtest.Event
	for {
		e, err := es.Next()
		require.NoError(t, err)
		events = append(events, e)
		if e.Type == "done" {
			break
		}
	}
	ends := finished(events)
	require.Len(t, ends, 1, "%v", events)
	require.Equal(t, "failed", ends[0]["phase"])
	require.Equal(t, "forbidden", toolErrorCode(t, ends[0]))
	var turnErr map[string]any
	for _, e := range events {
		if e.Type == "error" {
			turnErr = e.Data
		}
	}
	require.Equal(t, "forbidden", turnErr["code"], "%v", events)
	require.Equal(t, "error", events[len(events)-1].Data["status"])

	turn, _, err := s.Chat.GetTurn(ctx, st.TurnID)
	require.NoError(t, err)
	require.Equal(t, "forbidden", turn.ErrorCode)
	require.Len(t, s.Model.Requests(), 1, "the model is not asked again")
	require.Zero(t, totalTasks(t, s), "nothing written")
}

// TestARemovedMembersPausedTurnEndsAtOnce: a paused turn of a removed
// member is resumed by the removal (its person can no longer resume or
// stop it) and ends at its next step, instead of waiting paused until its
// time limit.
func TestARemovedMembersPausedTurnEndsAtOnce(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"fault": {"kind": "hang"}}}]}`)})
	eddie, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
	eddieID := personID(t, s, s.SpaceID, "Eddie Editor")
	r := s.Do(t, eddie, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	st := askAs(t, s, eddie, r.JSON(t)["id"].(string), "hello")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 1 && r[0].HeadersAt != nil })
	require.NoError(t, err)
	r = s.Do(t, eddie, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	awaitDisconnect(t, s, 1)

	r = s.Do(t, s.Token, "DELETE", "/api/spaces/"+s.SpaceID+"/members/"+eddieID, nil)
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	require.Eventually(t, func() bool {
		turn, _, err := s.Chat.GetTurn(ctx, st.TurnID)
		return err == nil && turn.Status.Final()
	}, 30*time.Second, 20*time.Millisecond)
	turn, _, err := s.Chat.GetTurn(ctx, st.TurnID)
	require.NoError(t, err)
	require.Equal(t, "error", string(turn.Status))
	require.Equal(t, "forbidden", turn.ErrorCode)
	require.Len(t, s.Model.Requests(), 1, "the model is not asked again")
}

// TestLeavingAnotherSpaceHidesWhatATurnDidThere: a turn across spaces
// wrote in North and held a write there; once the person leaves North, the
// conversation (in Team) still reads, but nothing in it names North's
// records, and the Needs me list drops the write held there.
func TestLeavingAnotherSpaceHidesWhatATurnDidThere(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	_, north := s.Member(t, "North", "Mira Chen", workspace.RoleEditor)
	conv := s.Conversation(t)
	s.Model.SetScript(callsThenSummary(t, newTask("Draft brief", ""), newTask("Order paint", "North")))
	s.Stream(t, askIn(t, s, conv, "add two tasks", []string{north}).StreamURL, 0, 0)
	require.Equal(t, http.StatusOK, s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "needs-me"}).Status)
	s.Model.SetScript(callsThenSummary(t, newTask("Plan week", ""), newTask("Book ferry", "North")))
	s.Stream(t, askIn(t, s, conv, "add two more", []string{north}).StreamURL, 0, 0)
	require.Len(t, s.Do(t, s.Token, "GET", "/api/assistant/needs-me", nil).JSON(t)["items"], 2)
	messages := func() string {
		r := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return string(r.Body)
	}
	before := messages()
	require.Contains(t, before, "Order paint")
	require.Contains(t, before, "Book ferry")
	require.Contains(t, before, north)

	// Mira leaves North herself.
	r := s.Do(t, s.Token, "DELETE", "/api/spaces/"+north+"/members/"+s.OwnerID, nil)
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)

	// The records say nothing of North (the reply's text is what the
	// assistant wrote then, and stays).
	var body struct {
		Messages []struct {
			Refs      []map[string]any
			ToolCalls []struct {
				Tool, Status, Summary string
				Refs                  []map[string]any
			}
			Proposals []struct{ Preview, SpaceID string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(messages()), &body))
	var summaries, previews []string
	calls := 0
	for _, m := range body.Messages {
		for _, ref := range m.Refs {
			require.NotEqual(t, north, ref["spaceId"], "%v", ref)
		}
		for _, c := range m.ToolCalls {
			calls++
			summaries = append(summaries, c.Summary)
			for _, ref := range c.Refs {
				require.NotEqual(t, north, ref["spaceId"], "%v", ref)
			}
		}
		for _, p := range m.Proposals {
			previews = append(previews, p.Preview)
		}
	}
	require.Equal(t, 4, calls, "the calls stay, with their tool and status")
	require.Equal(t, []string{"Added 1 task: “Draft brief”.", "", "Create tasks: “Plan week”", ""}, summaries)
	require.Equal(t, []string{"Create tasks: “Plan week”", ""}, previews)
	items := s.Do(t, s.Token, "GET", "/api/assistant/needs-me", nil).JSON(t)["items"].([]any)
	require.Len(t, items, 1)
	require.Contains(t, items[0].(map[string]any)["preview"], "Plan week")
}

// TestRemovedWhileTheirApplyRuns: the membership goes between the Apply's
// commit and its answer; the person gets 404, as for a message that does
// not exist, not a failure of Hub, and the writes made while they could
// still write stay, once.
func TestRemovedWhileTheirApplyRuns(t *testing.T) {
	t.Parallel()
	var s *hubtest.Stack
	var eddieID string
	var once sync.Once
	s = hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(createThenAnswer), Fault: func(point string) error {
		if point == activities.FaultAfterCommit {
			once.Do(func() {
				err := s.Workspace.RemoveMember(context.Background(), s.OwnerID, s.SpaceID, eddieID)
				if err != nil {
					panic(err)
				}
			})
		}
		return nil
	}})
	eddie, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
	eddieID = personID(t, s, s.SpaceID, "Eddie Editor")
	require.Equal(t, http.StatusOK, s.Do(t, eddie, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"}).Status)
	r := s.Do(t, eddie, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	conv := r.JSON(t)["id"].(string)
	st := askAs(t, s, eddie, conv, "add a task")
	s.Stream(t, st.StreamURL, 0, 0)

	r = s.Do(t, eddie, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	code, path := errorOf(t, r)
	require.Equal(t, "not_found", code)
	require.Equal(t, "/messageId", path)
	require.Equal(t, []string{"Draft brief"}, titlesIn(t, s, s.Token, s.SpaceID))
	r = s.Do(t, eddie, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	require.Equal(t, []string{"Draft brief"}, titlesIn(t, s, s.Token, s.SpaceID))
}

// TestRemovedFromTheConversationsSpaceActsNowhere: a turn across spaces
// whose person is removed from the conversation's space (they keep the
// other one) writes nothing in the other space either, and ends forbidden.
func TestRemovedFromTheConversationsSpaceActsNowhere(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"match": {"afterToolResult": false}, "reply": {"firstTokenDelay": "3s",
	    "toolCalls": [{"name": "hub_create_tasks", "arguments": {"space": "North", "tasks": [{"title": "Order paint"}]}}]}},
	  {"reply": {"text": "{{.LastToolSummary}}"}}
	]}`)})
	eddie, _ := s.Member(t, "Team", "Eddie Editor", workspace.RoleEditor)
	northOwner, north := s.Member(t, "North", "Nora North", workspace.RoleOwner)
	s.Member(t, "North", "Eddie Editor", workspace.RoleEditor)
	eddieID := personID(t, s, s.SpaceID, "Eddie Editor")
	r := s.Do(t, eddie, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	r = s.Do(t, eddie, "POST", "/api/assistant/conversations/"+r.JSON(t)["id"].(string)+"/turns",
		map[string]any{"text": "add a task in North", "spaces": []string{north}})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 1 })
	require.NoError(t, err)
	r = s.Do(t, s.Token, "DELETE", "/api/spaces/"+s.SpaceID+"/members/"+eddieID, nil)
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)

	require.Eventually(t, func() bool {
		turn, _, err := s.Chat.GetTurn(ctx, st.TurnID)
		return err == nil && turn.Status.Final()
	}, 30*time.Second, 20*time.Millisecond)
	turn, _, err := s.Chat.GetTurn(ctx, st.TurnID)
	require.NoError(t, err)
	require.Equal(t, "forbidden", turn.ErrorCode)
	call, err := s.Chat.GetToolCall(ctx, st.TurnID+".1.0")
	require.NoError(t, err)
	require.Equal(t, "failed", call.Status)
	require.Equal(t, "forbidden", call.ErrorCode)
	require.Empty(t, titlesIn(t, s, northOwner, north), "nothing written in North")
	require.Len(t, s.Model.Requests(), 1)
}

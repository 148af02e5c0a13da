//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workflows"
	"hub/workspace"
)

// TestAgentSchedules: an agent's schedules through the api, on both
// engines, against the embedded Temporal server's Schedules. Bad specs are
// refused at their field and nothing is stored; a schedule shows its next
// run times in its time zone; a trigger fires it, and its turn runs in the
// schedule's conversation as the agent with its writes held on the owner's
// Needs me list; a one-off run fires by time and, with writes immediate,
// writes at once; pause and resume carry a note; switching the agent off
// pauses its schedules (and a trigger is refused), switching it on resumes
// them; deleting a schedule or the agent deletes the Temporal Schedule.
// The firings and their turns carry Hub's search attributes.
func TestAgentSchedules(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(`{"rules": [
		  {"match": {"lastUser": "add", "afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Scheduled task"}]}}]}},
		  {"match": {"lastUser": "file", "afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Timed task"}]}}]}},
		  {"reply": {"text": "done"}}]}`)})
		otherToken, _ := s.Member(t, "Elsewhere", "Ken Ito", "editor")
		r := s.Do(t, s.Token, "POST", "/api/agents", map[string]any{"name": "Planner", "spaces": []string{s.SpaceID}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		agent := r.JSON(t)["id"].(string)
		base := "/api/agents/" + agent + "/schedules"

		// Bad input is refused at its field; nothing is stored.
		for _, tc := range []struct {
			body map[string]any
			path string
		}{
			{map[string]any{"text": "", "spec": map[string]any{"cron": "0 9 * * *"}}, "/text"},
			{map[string]any{"text": "x", "spec": map[string]any{}}, "/spec"},
			{map[string]any{"text": "x", "spec": map[string]any{"cron": "0 9 * * *", "at": time.Now().Add(time.Hour)}}, "/spec"},
			{map[string]any{"text": "x", "spec": map[string]any{"cron": "0 9 * *"}}, "/spec/cron"},
			{map[string]any{"text": "x", "spec": map[string]any{"cron": "0 99 * * *"}}, "/spec/cron"},
			{map[string]any{"text": "x", "spec": map[string]any{"cron": "@every 1s"}}, "/spec/cron"},
			{map[string]any{"text": "x", "spec": map[string]any{"calendar": map[string]any{"hour": []int{24}}}}, "/spec/calendar/hour/0"},
			{map[string]any{"text": "x", "spec": map[string]any{"at": time.Now().Add(-time.Minute)}}, "/spec/at"},
			{map[string]any{"text": "x", "spec": map[string]any{"at": time.Now().Add(time.Second)}}, "/spec/at"}, // too soon to be sure to fire
			{map[string]any{"text": "x", "spec": map[string]any{"cron": "@daily"}, "timeZone": "Mars/Olympus"}, "/timeZone"},
			{map[string]any{"text": "x", "spec": map[string]any{"cron": "@daily"}, "overlap": "all"}, "/overlap"},
			{map[string]any{"text": "x", "spec": map[string]any{"cron": "@daily"}, "writes": "later"}, "/writes"},
		} {
			r := s.Do(t, s.Token, "POST", base, tc.body)
			require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", tc.body, r.Body)
			require.Equal(t, tc.path, r.JSON(t)["error"].(map[string]any)["path"], "%s", r.Body)
		}
		require.Equal(t, map[string]any{"schedules": []any{}}, s.Do(t, s.Token, "GET", base, nil).JSON(t), "nothing stored")
		require.Equal(t, http.StatusNotFound, s.Do(t, otherToken, "POST", base, map[string]any{"text": "x", "spec": map[string]any{"cron": "@daily"}}).Status)

		// Weekdays at 9 in Berlin: the next runs say so.
		r = s.Do(t, s.Token, "POST", base, map[string]any{"text": "add the weekly review", "spec": map[string]any{"cron": "0 9 * * 1-5"},
			"timeZone": "Europe/Berlin"})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		var weekly struct {
			ID             string      `json:"id"`
			ConversationID string      `json:"conversationId"`
			Overlap        string      `json:"overlap"`
			Writes         string      `json:"writes"`
			Paused         bool        `json:"paused"`
			NextRuns       []time.Time `json:"nextRuns"`
		}
		r.Decode(t, &weekly)
		require.Equal(t, "skip", weekly.Overlap)
		require.Equal(t, "apply", weekly.Writes)
		require.False(t, weekly.Paused)
		require.Len(t, weekly.NextRuns, 5)
		berlin, err := time.LoadLocation("Europe/Berlin")
		require.NoError(t, err)
		for _, at := range weekly.NextRuns {
			local := at.In(berlin)
			require.Equal(t, 9, local.Hour(), "%s", local)
			require.NotContains(t, []time.Weekday{time.Saturday, time.Sunday}, local.Weekday(), "%s", local)
			require.True(t, at.After(time.Now()))
		}
		conv := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+weekly.ConversationID, nil)
		require.Equal(t, http.StatusOK, conv.Status, "%s", conv.Body)
		require.Equal(t, agent, conv.JSON(t)["agentId"], "the schedule's conversation is the agent's")
		one := base + "/" + weekly.ID
		require.Equal(t, http.StatusNotFound, s.Do(t, otherToken, "GET", one, nil).Status, "someone else's")
		require.Equal(t, http.StatusNotFound, s.Do(t, otherToken, "POST", one+"/trigger", nil).Status)

		// The schedule is Temporal's, with Hub's search attributes.
		h := s.Temporal.ScheduleClient().GetHandle(t.Context(), workflows.ScheduleID(weekly.ID))
		d, err := h.Describe(t.Context())
		require.NoError(t, err)
		require.Equal(t, "ScheduledTurn", d.Schedule.Action.(*client.ScheduleWorkflowAction).Workflow)

		// A trigger fires it: the agent's turn runs in the schedule's
		// conversation, and its write waits on Needs me.
		r = s.Do(t, s.Token, "POST", one+"/trigger", nil)
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		run := awaitRun(t, s, one, 1)
		require.Equal(t, "done", run["turnStatus"], "%v", run)
		turnID := run["turnId"].(string)
		if d, err = h.Describe(t.Context()); assert.NoError(t, err) && assert.Len(t, d.Info.RecentActions, 1) && !sqlite {
			// The firing's history replays (and is recorded with HUB_RECORD_HISTORY=1).
			replayWorkflow(t, s, d.Info.RecentActions[0].StartWorkflowResult.WorkflowID, "", "scheduled_turn_v0.json")
		}
		msgs := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+weekly.ConversationID+"/messages", nil)
		require.Contains(t, string(msgs.Body), "add the weekly review")
		require.Contains(t, string(msgs.Body), turnID)
		needs := s.Do(t, s.Token, "GET", "/api/assistant/needs-me", nil).JSON(t)["items"].([]any)
		require.Len(t, needs, 1, "the write waits for the owner")
		require.NotContains(t, string(s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).Body), "Scheduled task")
		held := needs[0].(map[string]any)
		r = s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": held["conversationId"], "messageId": held["messageId"]})
		require.Equal(t, http.StatusOK, r.Status, "the owner's Apply runs it: %s", r.Body)
		require.Contains(t, string(s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).Body), "Scheduled task")
		require.Empty(t, s.Do(t, s.Token, "GET", "/api/assistant/needs-me", nil).JSON(t)["items"])
		for _, q := range []string{
			fmt.Sprintf("HubAgentID = '%s' AND WorkflowType = 'ScheduledTurn'", agent),
			fmt.Sprintf("HubAgentID = '%s' AND WorkflowId = '%s'", agent, workflows.TurnWorkflowID(turnID)),
		} {
			require.Eventually(t, func() bool {
				n, err := s.Temporal.CountWorkflow(t.Context(), &workflowservice.CountWorkflowExecutionsRequest{Query: q})
				return err == nil && n.GetCount() == 1
			}, 10*time.Second, 50*time.Millisecond, q)
		}

		// Pause and resume, each with a note; no next runs while paused.
		r = s.Do(t, s.Token, "PATCH", one, map[string]any{"paused": true, "note": "on holiday"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, true, r.JSON(t)["paused"])
		require.Equal(t, "on holiday", r.JSON(t)["note"])
		require.Empty(t, r.JSON(t)["nextRuns"])
		require.Equal(t, http.StatusBadRequest, s.Do(t, s.Token, "PATCH", one, map[string]any{"note": "x"}).Status, "paused is required")
		r = s.Do(t, s.Token, "PATCH", one, map[string]any{"paused": false})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, false, r.JSON(t)["paused"])
		require.Len(t, r.JSON(t)["nextRuns"], 5)

		// A one-off run fires by time; with writes immediate it writes at once.
		at := time.Now().Add(workspace.MinScheduleLead + time.Second).UTC().Truncate(time.Second).Add(time.Second)
		r = s.Do(t, s.Token, "POST", base, map[string]any{"text": "file a new task for the notes", "spec": map[string]any{"at": at},
			"writes": "immediate", "conversationId": weekly.ConversationID})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		timed := r.JSON(t)
		require.Equal(t, weekly.ConversationID, timed["conversationId"])
		require.Equal(t, []any{at.Format(time.RFC3339)}, timed["nextRuns"])
		timedRun := awaitRun(t, s, base+"/"+timed["id"].(string), 1)
		require.Equal(t, "done", timedRun["turnStatus"], "%v", timedRun)
		started, err := time.Parse(time.RFC3339Nano, timedRun["scheduledAt"].(string))
		require.NoError(t, err)
		require.True(t, started.Equal(at), "fired at %s, set for %s", started, at)
		require.Contains(t, string(s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).Body), "Timed task",
			"%s", s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+weekly.ConversationID+"/messages", nil).Body)

		// Switching the agent off pauses its schedules and refuses
		// triggers; switching it on resumes those it paused.
		r = s.Do(t, s.Token, "PATCH", "/api/agents/"+agent, map[string]any{"version": 1, "enabled": false})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		got := s.Do(t, s.Token, "GET", one, nil).JSON(t)
		require.Equal(t, true, got["paused"])
		require.Equal(t, true, got["heldByAgent"])
		require.Contains(t, got["note"], "switched off")
		require.Equal(t, http.StatusConflict, s.Do(t, s.Token, "POST", one+"/trigger", nil).Status)
		require.Equal(t, http.StatusConflict, s.Do(t, s.Token, "PATCH", one, map[string]any{"paused": false}).Status)
		r = s.Do(t, s.Token, "PATCH", "/api/agents/"+agent, map[string]any{"version": 2, "enabled": true})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		got = s.Do(t, s.Token, "GET", one, nil).JSON(t)
		require.Equal(t, false, got["paused"])
		require.Equal(t, false, got["heldByAgent"])

		// Deleting a schedule deletes its Temporal Schedule; deleting the
		// agent deletes the rest.
		require.Equal(t, http.StatusNoContent, s.Do(t, s.Token, "DELETE", one, nil).Status)
		_, err = h.Describe(t.Context())
		require.ErrorAs(t, err, new(*serviceerror.NotFound))
		require.Equal(t, http.StatusNotFound, s.Do(t, s.Token, "GET", one, nil).Status)
		require.Len(t, s.Do(t, s.Token, "GET", base, nil).JSON(t)["schedules"], 1)
		require.Equal(t, http.StatusNoContent, s.Do(t, s.Token, "DELETE", "/api/agents/"+agent, nil).Status)
		_, err = s.Temporal.ScheduleClient().GetHandle(t.Context(), workflows.ScheduleID(timed["id"].(string))).Describe(t.Context())
		require.ErrorAs(t, err, new(*serviceerror.NotFound))
	})
}

// awaitRun waits until the schedule at path shows n firings and the last
// one's turn ended, and returns that firing.
func awaitRun(t *testing.T, s *hubtest.Stack, path string, n int) map[string]any {
	t.Helper()
	var last map[string]any
	require.Eventually(t, func() bool {
		runs, _ := s.Do(t, s.Token, "GET", path, nil).JSON(t)["recentRuns"].([]any)
		if len(runs) < n {
			return false
		}
		last = runs[n-1].(map[string]any)
		switch last["turnStatus"] {
		case "done", "error", "stopped", "skipped":
			return true
		}
		return false
	}, 60*time.Second, 100*time.Millisecond, "the schedule's firing %d ended", n)
	return last
}

// TestAScheduleFiresWhileTheWorkerIsDown: a firing that comes due while no
// Hub worker runs is kept by Temporal and runs once a worker is back,
// within the catch-up window: the schedule shows it waiting ("starting"),
// then its turn done, once.
func TestAScheduleFiresWhileTheWorkerIsDown(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{SQLite: true, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "done"}}]}`)})
	r := s.Do(t, s.Token, "POST", "/api/agents", map[string]any{"name": "Night shift", "spaces": []string{s.SpaceID}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	base := "/api/agents/" + r.JSON(t)["id"].(string) + "/schedules"
	s.StopWorker()
	at := time.Now().Add(workspace.MinScheduleLead + time.Second).UTC().Truncate(time.Second).Add(time.Second)
	r = s.Do(t, s.Token, "POST", base, map[string]any{"text": "summarize the night", "spec": map[string]any{"at": at}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	one := base + "/" + r.JSON(t)["id"].(string)
	require.Eventually(t, func() bool {
		runs, _ := s.Do(t, s.Token, "GET", one, nil).JSON(t)["recentRuns"].([]any)
		return len(runs) == 1 && runs[0].(map[string]any)["turnStatus"] == "starting"
	}, 30*time.Second, 100*time.Millisecond, "the firing came due and waits for a worker")
	s.StartWorker(t)
	run := awaitRun(t, s, one, 1)
	require.Equal(t, "done", run["turnStatus"], "%v", run)
	got := s.Do(t, s.Token, "GET", one, nil).JSON(t)
	require.EqualValues(t, 1, got["firings"])
	require.EqualValues(t, 0, got["missedFirings"], "within the catch-up window")
}

// TestTwoTriggersRunTwoTurns: with overlap buffer_one, a second trigger
// while the first firing's turn runs waits and then runs a turn of its
// own, also when Temporal gives both firings one workflow id (two triggers
// in one second): each firing is keyed by its run, never by its id alone.
func TestTwoTriggersRunTwoTurns(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{SQLite: true, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "done"}}]}`)})
	r := s.Do(t, s.Token, "POST", "/api/agents", map[string]any{"name": "Twice", "spaces": []string{s.SpaceID}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	base := "/api/agents/" + r.JSON(t)["id"].(string) + "/schedules"
	r = s.Do(t, s.Token, "POST", base, map[string]any{"text": "check in", "spec": map[string]any{"cron": "@yearly"}, "overlap": "buffer_one"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	one := base + "/" + r.JSON(t)["id"].(string)
	for range 2 {
		require.Equal(t, http.StatusAccepted, s.Do(t, s.Token, "POST", one+"/trigger", nil).Status)
	}
	first, second := awaitRun(t, s, one, 1), awaitRun(t, s, one, 2)
	require.Equal(t, "done", first["turnStatus"], "%v", first)
	require.Equal(t, "done", second["turnStatus"], "%v", second)
	require.NotEqual(t, first["turnId"], second["turnId"], "each firing its own turn")
	msgs := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+s.Do(t, s.Token, "GET", one, nil).JSON(t)["conversationId"].(string)+"/messages", nil)
	require.Len(t, msgs.JSON(t)["messages"], 4, "two messages and two replies")
}

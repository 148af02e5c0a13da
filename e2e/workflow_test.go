package e2e

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/activities"
	"hub/fakemodel"
	"hub/hubtest"
)

// launchPlan: a project, then a task in it by $ref.
const launchPlan = `{"rules": [
  {"times": 1, "reply": {"toolCalls": [{"name": "hub_run_workflow", "arguments": {"steps": [
    {"id": "project", "tool": "hub_create_project", "input": {"name": "Launch"}},
    {"id": "tasks", "tool": "hub_create_tasks", "input": {"tasks": [{"title": "Write the announcement", "projectId": {"$ref": "project.project.id"}}]}}
  ]}}]}},
  {"reply": {"text": "I proposed the launch plan."}}]}`

type stepsAnswer struct {
	Receipts []struct {
		Status string
		Error  struct{ Message string }
		Steps  []struct {
			ID, Status string
			Error      struct{ Message string }
		}
	}
}

func proposeLaunch(t *testing.T, s *hubtest.Stack) (conv, reply string) {
	t.Helper()
	conv = s.Conversation(t)
	st := s.Ask(t, conv, "set up the launch project with its first task")
	held := false
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] == "held" {
			held = true
			require.Contains(t, e.Data["summary"], "Run 2 steps in order")
		}
	}
	require.True(t, held, "a workflow always waits for Apply")
	return conv, st.ReplyMessageID
}

func applySteps(t *testing.T, s *hubtest.Stack, conv, reply string, extra map[string]any) stepsAnswer {
	t.Helper()
	body := map[string]any{"conversationId": conv, "messageId": reply}
	for k, v := range extra {
		body[k] = v
	}
	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", body)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var a stepsAnswer
	r.Decode(t, &a)
	require.Len(t, a.Receipts, 1)
	return a
}

func TestWorkflowStepsRunInOrderWithRefs(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(launchPlan)})
	conv, reply := proposeLaunch(t, s)
	a := applySteps(t, s, conv, reply, nil)
	require.Equal(t, "succeeded", a.Receipts[0].Status)
	require.Equal(t, "succeeded", a.Receipts[0].Steps[0].Status)
	require.Equal(t, "succeeded", a.Receipts[0].Steps[1].Status)

	projects := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"].([]any)
	require.Len(t, projects, 1)
	tasks := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).JSON(t)["tasks"].([]any)
	require.Len(t, tasks, 1)
	require.Equal(t, projects[0].(map[string]any)["id"], tasks[0].(map[string]any)["projectId"], "the $ref took the project's id")

	// Retry never runs a succeeded step again.
	applySteps(t, s, conv, reply, nil)
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"], 1)
}

func TestWorkflowFailureStopsTheRestAndRetryRunsOnlyWhatRemains(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(launchPlan)})
	conv, reply := proposeLaunch(t, s)
	// Task writes are switched off when Apply runs: step 2 is refused.
	r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"allowedWriteAreas": []string{"projects"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	a := applySteps(t, s, conv, reply, nil)
	require.Equal(t, "failed", a.Receipts[0].Status)
	require.Contains(t, a.Receipts[0].Error.Message, "Finished 1 of 2 steps")
	require.Equal(t, "succeeded", a.Receipts[0].Steps[0].Status)
	require.Equal(t, "failed", a.Receipts[0].Steps[1].Status)
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"], 1, "what finished stays")

	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"allowedWriteAreas": nil})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	a = applySteps(t, s, conv, reply, nil)
	require.Equal(t, "succeeded", a.Receipts[0].Status)
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"], 1, "step 1 did not run again")
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).JSON(t)["tasks"], 1)
}

func TestInterruptedStepIsNeverReplayedOnItsOwn(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(launchPlan), Fault: faultOnce(activities.FaultStepRunning, 1)})
	conv, reply := proposeLaunch(t, s)
	a := applySteps(t, s, conv, reply, nil)
	require.Equal(t, "failed", a.Receipts[0].Status)
	require.Equal(t, "interrupted", a.Receipts[0].Steps[0].Status, "the worker died while it ran")
	require.Empty(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"])

	a = applySteps(t, s, conv, reply, nil)
	require.Equal(t, "interrupted", a.Receipts[0].Steps[0].Status, "a plain Retry does not replay it")
	a = applySteps(t, s, conv, reply, map[string]any{"retryInterrupted": true})
	require.Equal(t, "succeeded", a.Receipts[0].Status, "Retry remaining steps does")
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"], 1)
}

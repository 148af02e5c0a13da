//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/storage"
	"hub/temporal"
	"hub/workflows"
)

// createsThenAnswers: the model creates a task, then answers.
const createsThenAnswers = `{"rules": [` + createRules + `]}`

// failsThenCreates: the first model request is refused (400, not retried:
// the turn ends as model_error); after that, createsThenAnswers.
const failsThenCreates = `{"rules": [
  {"name": "refused", "times": 1, "reply": {"fault": {"kind": "http_error", "status": 400, "message": "bad request"}}},` + createRules + `]}`

const createRules = `
  {"name": "create", "match": {"afterToolResult": false},
   "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Draft the brief"}]}}],
             "usage": {"input": 100, "output": 10}}},
  {"name": "answer", "match": {"afterToolResult": true},
   "reply": {"text": "Added: {{.LastToolSummary}}", "chunkSize": 5, "usage": {"input": 200, "output": 20}}}`

// resetTurn resets the turn's workflow as `temporal workflow reset` does,
// to the first or the last completed workflow task of its current run
// (--type FirstWorkflowTask / LastWorkflowTask), waits for the new run and
// returns its result.
func resetTurn(t *testing.T, s *hubtest.Stack, turnID string, last bool) workflows.TurnResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var res workflows.TurnResult
	require.NoError(t, s.Temporal.GetWorkflow(ctx, workflows.TurnWorkflowID(turnID), startReset(t, s, turnID, last)).Get(ctx, &res))
	return res
}

// startReset resets the turn's workflow (see resetTurn) and returns the
// new run's id.
func startReset(t *testing.T, s *hubtest.Stack, turnID string, last bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wfID := workflows.TurnWorkflowID(turnID)
	// The turn's row says it ended before its workflow's last task
	// completes (FinishTurn runs in it): wait for the run to close, so
	// its history is whole.
	_ = s.Temporal.GetWorkflow(ctx, wfID, "").Get(ctx, nil)
	var point int64
	it := s.Temporal.GetWorkflowHistory(ctx, wfID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && (last || point == 0) {
			point = ev.GetEventId()
		}
	}
	require.NotZero(t, point)
	resp, err := s.Temporal.ResetWorkflowExecution(ctx, &workflowservice.ResetWorkflowExecutionRequest{
		Namespace: temporal.DefaultNamespace, WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: wfID},
		Reason: "test", WorkflowTaskFinishEventId: point,
	})
	require.NoError(t, err)
	return resp.GetRunId()
}

// requireOneAttempt checks a whole stream read from the start: numbered
// without gap, one done (the last frame), and the last reset frame opens
// an attempt that holds nothing of an earlier ending. It returns the
// frames of that attempt (from its reset frame on).
func requireOneAttempt(t *testing.T, events []hubtest.Event) []hubtest.Event {
	t.Helper()
	requireNumbered(t, events)
	start := -1
	for i, e := range events {
		if i < len(events)-1 {
			require.NotEqual(t, "done", e.Type, "the only done frame is the last; frame %d", e.ID)
		}
		if e.Type == "status" && e.Data["reset"] == true {
			require.Equal(t, true, e.Data["discard"], "a reset frame tells the client to drop what came before")
			start = i
		}
	}
	require.GreaterOrEqual(t, start, 0, "a reset run's frames start with a reset status frame")
	attempt := events[start:]
	for _, e := range attempt {
		require.NotEqual(t, "error", e.Type, "the new attempt shows no error of the old run")
	}
	require.Equal(t, "done", attempt[len(attempt)-1].Type)
	return attempt
}

func countDone(t *testing.T, db *storage.DB, turnID string) int64 {
	t.Helper()
	var n int64
	require.NoError(t, db.Model(&storage.Frame{}).Where("log = ? AND type = ?", turnID, "done").Count(&n).Error)
	return n
}

func replyOf(t *testing.T, s *hubtest.Stack, conv, id string) map[string]any {
	t.Helper()
	for _, m := range s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil).JSON(t)["messages"].([]any) {
		if msg := m.(map[string]any); msg["id"] == id {
			return msg
		}
	}
	t.Fatalf("no message %s", id)
	return nil
}

func TestResetOfAFailedTurnSavesWhatTheNewRunDid(t *testing.T) {
	t.Parallel()
	onBothEngines(t, resetOfAFailedTurn)
}

func resetOfAFailedTurn(t *testing.T, sqlite bool) {
	s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(failsThenCreates)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task to draft the brief")
	old := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "error", old[len(old)-1].Data["status"])
	turn := s.AwaitStatus(t, st.TurnID)
	require.Equal(t, "model_error", turn["error"].(map[string]any)["code"])

	// The operator reads the failed turn as failed in Temporal: its
	// failure (Hub's code, the result in its details) and its
	// HubTurnStatus.
	ctx := context.Background()
	var first workflows.TurnResult
	first, err := workflows.TurnEnding(first, s.Temporal.GetWorkflow(ctx, workflows.TurnWorkflowID(st.TurnID), "").Get(ctx, &first))
	require.NoError(t, err)
	require.Equal(t, workflows.TurnResult{Status: "error", Steps: 1, ErrorCode: "model_error",
		ErrorMessage: "The model could not answer this time. Retry, or ask again later."}, first)
	awaitListed(t, s, fmt.Sprintf(`WorkflowId = %q AND ExecutionStatus = "Failed" AND HubTurnStatus = "error"`, workflows.TurnWorkflowID(st.TurnID)), 1)

	res := resetTurn(t, s, st.TurnID, false)
	require.Equal(t, workflows.TurnResult{Status: "done", Steps: 2}, res)

	turn = s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)
	require.Equal(t, "done", turn["status"])
	require.Nil(t, turn["error"], "the old run's error is gone")
	require.Equal(t, map[string]any{"inputTokens": 300.0, "outputTokens": 30.0}, turn["usage"], "the usage of the new run's two steps")
	reply := replyOf(t, s, conv, st.ReplyMessageID)
	require.Equal(t, "done", reply["status"])
	require.Nil(t, reply["error"])
	require.Contains(t, reply["text"], "Added")

	tasks := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks?q=brief", nil).JSON(t)["tasks"].([]any)
	require.Len(t, tasks, 1)

	all := s.Stream(t, st.StreamURL, 0, 0)
	attempt := requireOneAttempt(t, all)
	require.Equal(t, int64(1), countDone(t, s.DB, st.TurnID))
	done := attempt[len(attempt)-1]
	require.Equal(t, "done", done.Data["status"])
	require.Equal(t, map[string]any{"inputTokens": 300.0, "outputTokens": 30.0}, done.Data["usage"])
	types := []string{}
	for _, e := range attempt {
		types = append(types, e.Type)
	}
	require.Contains(t, types, "refs", "PrepareTurn ran again in the new attempt")
	require.Contains(t, types, "tool")
	require.Contains(t, hubtest.Text(all), "Added", "what a client shows")
	require.NotContains(t, hubtest.Text(all), "could not answer")

	// A client that closed on the old done frame and resumes after it
	// reads the new attempt from its reset frame to one done.
	resumed := s.Stream(t, st.StreamURL, old[len(old)-1].ID, 0)
	require.Equal(t, "status", resumed[0].Type)
	require.Equal(t, true, resumed[0].Data["reset"])
	require.Equal(t, all[len(all)-len(resumed):], resumed)

	awaitListed(t, s, fmt.Sprintf(`WorkflowId = %q AND HubTurnStatus = "done"`, workflows.TurnWorkflowID(st.TurnID)), 1)
	if !sqlite {
		replayTurn(t, s, st.TurnID, "", "turn_reset_failed_v5.json", "turn-shape")
	}
}

func TestResetOfADoneTurnKeepsOneDone(t *testing.T) {
	t.Parallel()
	onBothEngines(t, resetOfADoneTurn)
}

func resetOfADoneTurn(t *testing.T, sqlite bool) {
	s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(createsThenAnswers)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task to draft the brief")
	before := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", before[len(before)-1].Data["status"])
	turn := s.AwaitStatus(t, st.TurnID)
	calls := len(s.Model.Requests())
	replyText := replyOf(t, s, conv, st.ReplyMessageID)["text"]

	// Reset to the last workflow task: only the ending runs again; the
	// model is not called.
	res := resetTurn(t, s, st.TurnID, true)
	require.Equal(t, "done", res.Status)
	require.Len(t, s.Model.Requests(), calls, "a reset after the last model step does not call the model")
	again := s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)
	require.Equal(t, turn["usage"], again["usage"])
	require.Equal(t, "done", again["status"])
	require.Equal(t, replyText, replyOf(t, s, conv, st.ReplyMessageID)["text"])
	all := s.Stream(t, st.StreamURL, 0, 0)
	attempt := requireOneAttempt(t, all)
	require.Equal(t, int64(1), countDone(t, s.DB, st.TurnID))
	require.Equal(t, turn["usage"], attempt[len(attempt)-1].Data["usage"])
	require.Equal(t, hubtest.Text(before), hubtest.Text(all), "the kept steps' text is in the new attempt")

	// Reset to the first workflow task: every step runs again (the model
	// is called, and billed, again); the write the model repeats keeps its
	// saved outcome and is not made twice.
	res = resetTurn(t, s, st.TurnID, false)
	require.Equal(t, "done", res.Status)
	require.Len(t, s.Model.Requests(), 2*calls)
	all = s.Stream(t, st.StreamURL, 0, 0)
	requireOneAttempt(t, all)
	require.Equal(t, int64(1), countDone(t, s.DB, st.TurnID))
	tasks := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks?q=brief", nil).JSON(t)["tasks"].([]any)
	require.Len(t, tasks, 1, "the repeated write kept its saved outcome")
	require.Equal(t, "done", s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)["status"])
}

// awaitListed waits until the visibility query finds n executions.
func awaitListed(t *testing.T, s *hubtest.Stack, query string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		resp, err := s.Temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: query})
		return err == nil && len(resp.GetExecutions()) == n
	}, 30*time.Second, 50*time.Millisecond, "%s", query)
}

// A reset run keeps the workflow's first start time; one started after the
// turn's wall-time bound passed gets the bound afresh, counted from the
// reset (as the server renews the execution timeout), so it answers rather
// than ending at once as timeout.
func TestResetPastTheWallTimeRunsWithAFreshBound(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(createsThenAnswers), TurnTimeout: 2 * time.Second})
	st := s.Ask(t, s.Conversation(t), "add a task to draft the brief")
	s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", s.AwaitStatus(t, st.TurnID)["status"])
	calls := len(s.Model.Requests())
	desc, err := s.Temporal.DescribeWorkflowExecution(context.Background(), workflows.TurnWorkflowID(st.TurnID), "")
	require.NoError(t, err)
	started := desc.GetWorkflowExecutionInfo().GetStartTime().AsTime()
	// The condition awaited is the clock itself: the reset must come after
	// the turn's 2 s bound has passed in wall time, and no event marks that.
	time.Sleep(time.Until(started.Add(2500 * time.Millisecond)))

	res := resetTurn(t, s, st.TurnID, false)
	require.Equal(t, workflows.TurnResult{Status: "done", Steps: 2}, res)
	require.Len(t, s.Model.Requests(), 2*calls, "the reset run called the model again")
	turn := s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)
	require.Equal(t, "done", turn["status"])
}

// A reset run cannot reopen its turn while another turn of the
// conversation runs: the run fails, for the operator, with the reason, and
// the turn keeps its ending.
func TestResetWhileAnotherTurnRunsFailsTheRunAndKeepsTheTurn(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"times": 1, "reply": {"fault": {"kind": "http_error", "status": 400}}},
	  {"reply": {"fault": {"kind": "hang"}}}]}`)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "first")
	s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "error", s.AwaitStatus(t, st.TurnID)["status"])
	running := s.Ask(t, conv, "second")
	s.Stream(t, running.StreamURL, 0, 2) // it runs (its model call hangs)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := s.Temporal.GetWorkflow(ctx, workflows.TurnWorkflowID(st.TurnID), startReset(t, s, st.TurnID, false)).Get(ctx, nil)
	require.ErrorContains(t, err, "another turn of conversation "+conv+" is running")
	turn := s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)
	require.Equal(t, "error", turn["status"])
	require.Equal(t, "model_error", turn["error"].(map[string]any)["code"])
	require.Equal(t, int64(1), countDone(t, s.DB, st.TurnID))

	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+running.TurnID+"/stop", nil)
	require.Equal(t, 202, r.Status, "%s", r.Body)
	require.Equal(t, "stopped", s.AwaitStatus(t, running.TurnID)["status"])
}

// Signals after the reset point are applied again (the CLI's default): a
// stopped turn reset to its first workflow task stops again at once,
// without calling the model, and says so once.
func TestResetOfAStoppedTurnStopsAgain(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(slowText)})
	st := s.Ask(t, s.Conversation(t), "tell me a long story")
	s.Stream(t, st.StreamURL, 0, 4)
	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/stop", nil)
	require.Equal(t, 202, r.Status, "%s", r.Body)
	require.Equal(t, "stopped", s.AwaitStatus(t, st.TurnID)["status"])
	calls := len(s.Model.Requests())

	res := resetTurn(t, s, st.TurnID, false)
	require.Equal(t, "stopped", res.Status)
	require.Len(t, s.Model.Requests(), calls)
	attempt := requireOneAttempt(t, s.Stream(t, st.StreamURL, 0, 0))
	require.Equal(t, "stopped", attempt[len(attempt)-1].Data["status"])
	require.Equal(t, "stopped", s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)["status"])
}

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
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"hub/assistant"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/workflows"
)

// A model call that passes HUB_MODEL_TIMEOUT while streaming keeps the
// text it had streamed: the saved reply has it, with the timeout line
// (its error) after it, and the inspector shows the step.
func TestModelTimeoutKeepsStreamedText(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, ModelTimeout: 2 * time.Second,
			Script: fakemodel.MustParseScript(`{"rules": [{"reply": {
			  "text": "` + strings.Repeat("slow words ", 60) + `",
			  "chunkSize": 11, "chunkDelay": "150ms"}}]}`)})
		conv := s.Conversation(t)
		st := s.Ask(t, conv, "tell me slowly")
		events := s.Stream(t, st.StreamURL, 0, 0)
		shown := hubtest.Text(events)
		require.NotEmpty(t, shown, "text streamed before the limit")
		require.Less(t, len(shown), 60*len("slow words "), "the limit cut the reply")
		var code string
		for _, e := range events {
			if e.Type == "turn_error" {
				code, _ = e.Data["code"].(string)
			}
		}
		require.Equal(t, "timeout", code)
		done := events[len(events)-1]
		require.Equal(t, "error", done.Data["status"])

		reply := replyOf(t, s, conv, done.Data["messageId"].(string))
		require.Equal(t, strings.TrimSpace(shown), strings.TrimSpace(reply["text"].(string)), "the reply keeps what was shown")
		require.Equal(t, "error", reply["status"])
		e, _ := reply["error"].(map[string]any)
		require.NotNil(t, e, "the timeout line follows the text: %v", reply)
		require.Equal(t, "timeout", e["code"])
		require.Contains(t, e["message"], "did not answer within 2 seconds")

		r := s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID+"/inspect", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var in struct {
			Steps []struct {
				Step         int
				Text         string
				FinishReason string
			}
		}
		r.Decode(t, &in)
		require.Len(t, in.Steps, 1, "the inspector shows the step")
		require.Equal(t, "timeout", in.Steps[0].FinishReason)
		require.Equal(t, strings.TrimSpace(shown), strings.TrimSpace(in.Steps[0].Text))
	})
}

// A retried error turn's reply follows its own person message (and the
// failed reply), not the replies of turns that ran after it.
func TestRetriedTurnsReplyFollowsItsMessage(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(`{"rules": [
		  {"times": 1, "reply": {"fault": {"kind": "http_error", "status": 400, "message": "refused"}}},
		  {"match": {"lastUser": "(one|two)$"}, "reply": {"text": "Answer to {{index .Groups 1}}."}}]}`)})
		conv := s.Conversation(t)
		first := s.Ask(t, conv, "one")
		s.Stream(t, first.StreamURL, 0, 0)
		require.Equal(t, "error", s.AwaitStatus(t, first.TurnID)["status"])
		second := s.Ask(t, conv, "two")
		s.Stream(t, second.StreamURL, 0, 0)
		require.Equal(t, "done", s.AwaitStatus(t, second.TurnID)["status"])

		r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+first.TurnID+"/retry", nil)
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		var retried hubtest.Started
		r.Decode(t, &retried)
		s.Stream(t, retried.StreamURL, 0, 0)
		require.Equal(t, "done", s.AwaitStatus(t, retried.TurnID)["status"])

		msgs := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil).JSON(t)["messages"].([]any)
		var got []string
		for _, m := range msgs {
			msg := m.(map[string]any)
			line := msg["role"].(string) + ":" + strings.TrimSpace(msg["text"].(string))
			if msg["role"] == "assistant" {
				line += " (" + msg["status"].(string) + ")"
			}
			got = append(got, line)
		}
		require.Equal(t, []string{
			"user:one", "assistant: (error)", "assistant:Answer to one. (done)",
			"user:two", "assistant:Answer to two. (done)",
		}, got)
	})
}

// A stopped model call reported no usage (the stream closed before its
// usage chunk), yet the model read the request and wrote what streamed:
// it settles at an estimate, marked as such in the inspector, so the
// space's spend grows with each stopped call.
func TestStoppedCallSettlesAtAnEstimate(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Price: priced(testPrice), Script: fakemodel.MustParseScript(endlessText)})
		conv := s.Conversation(t)
		var spent []float64
		for i := range 2 {
			st := s.Ask(t, conv, "tell me a long story")
			first := s.Stream(t, st.StreamURL, 0, 6)
			require.NotEmpty(t, hubtest.Text(first))
			r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/stop", nil)
			require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
			require.Equal(t, "stopped", s.AwaitStatus(t, st.TurnID)["status"])
			stopping := false
			for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
				stopping = stopping || e.Type == "status" && e.Data["status"] == "stopping"
			}
			require.True(t, stopping, "the turn's own stream says stopping")

			calls := turnCalls(t, s, st.TurnID)
			require.Len(t, calls, 1)
			require.Equal(t, "settled", calls[0].Status)
			require.True(t, calls[0].Estimated, "settled at an estimate")
			require.Positive(t, calls[0].InputTokens)
			require.Positive(t, calls[0].OutputTokens, "what streamed")
			require.Positive(t, calls[0].CostMicros)

			r = s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID+"/inspect", nil)
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			mc := r.JSON(t)["modelCalls"].([]any)[0].(map[string]any)
			require.Equal(t, true, mc["estimated"])

			settings := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/settings", nil).JSON(t)
			spent = append(spent, settings["spent"].(float64))
			require.Greater(t, spent[i], 0.0, "a stopped priced call is spent")
			if i > 0 {
				require.Greater(t, spent[i], spent[i-1], "each stopped call adds to the spend")
			}
		}
	})
}

// A turn that ended in error is a failed workflow in Temporal — the status
// filter, the failure count and Reset find it — failing with Hub's error
// code once the error was saved and its frames sent; Retry still works.
func TestErrorTurnFailsItsWorkflowWithHubsCode(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(failsThenCreates)})
		conv := s.Conversation(t)
		st := s.Ask(t, conv, "add a task to draft the brief")
		events := s.Stream(t, st.StreamURL, 0, 0)
		require.Equal(t, "error", events[len(events)-1].Data["status"], "the error frames and done were sent")
		require.Equal(t, "model_error", s.AwaitStatus(t, st.TurnID)["error"].(map[string]any)["code"])

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		wfID := workflows.TurnWorkflowID(st.TurnID)
		var res workflows.TurnResult
		err := s.Temporal.GetWorkflow(ctx, wfID, "").Get(ctx, &res)
		var ae *temporal.ApplicationError
		require.ErrorAs(t, err, &ae, "the workflow failed")
		require.Equal(t, "model_error", ae.Type(), "with Hub's error code")
		require.True(t, ae.NonRetryable())
		ended, err := workflows.TurnEnding(res, err)
		require.NoError(t, err, "an ended turn, not an infrastructure error")
		require.Equal(t, workflows.TurnResult{Status: "error", Steps: 1, ErrorCode: "model_error",
			ErrorMessage: "The model could not answer this time. Retry, or ask again later."}, ended)

		desc, err := s.Temporal.DescribeWorkflowExecution(ctx, wfID, "")
		require.NoError(t, err)
		require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, desc.GetWorkflowExecutionInfo().GetStatus())
		it := s.Temporal.GetWorkflowHistory(ctx, wfID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
		require.True(t, it.HasNext())
		closed, err := it.Next()
		require.NoError(t, err)
		failure := closed.GetWorkflowExecutionFailedEventAttributes().GetFailure()
		require.Equal(t, "model_error", failure.GetApplicationFailureInfo().GetType())
		require.True(t, failure.GetApplicationFailureInfo().GetNonRetryable())
		awaitListed(t, s, fmt.Sprintf(`WorkflowId = %q AND ExecutionStatus = "Failed" AND HubTurnStatus = "error"`, wfID), 1)

		r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/retry", nil)
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		var retried hubtest.Started
		r.Decode(t, &retried)
		events = s.Stream(t, retried.StreamURL, 0, 0)
		require.Equal(t, "done", events[len(events)-1].Data["status"])
		require.NoError(t, s.Temporal.GetWorkflow(ctx, workflows.TurnWorkflowID(retried.TurnID), "").Get(ctx, &res))
		require.Equal(t, "done", res.Status, "a done turn's workflow completes")
	})
}

// continues: the first call streams endless; the call that continues it
// after Resume repeats the last 20 characters of the reply so far (as
// models do), then ends it.
var continues = `{"rules": [
  {"name": "continue", "match": {"lastUser": "cut off by a pause"},
   "reply": {"text": "{{tail 20 .LastAssistant}} and that is the end.", "chunkSize": 5}},
  {"reply": {"text": "` + endless + `", "chunkSize": 5, "chunkDelay": "20ms"}}]}`

// Pause then Resume keeps the text already shown and asks the model to
// continue after it; what the continuation repeats of it is left out, no
// frame tells the client to drop anything, and the turn's own stream says
// paused.
func TestResumeContinuesTheReplySoFar(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(continues)})
		conv := s.Conversation(t)
		st := s.Ask(t, conv, "tell me a long story")
		first := s.Stream(t, st.StreamURL, 0, 6)

		r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		awaitDisconnect(t, s, 1)
		require.Eventually(t, func() bool {
			return s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)["status"] == "paused"
		}, 10*time.Second, 20*time.Millisecond)
		r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
		require.Equal(t, http.StatusAccepted, r.Status, "a repeated pause is harmless: %s", r.Body)
		r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/resume", nil)
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		rest := s.Stream(t, st.StreamURL, first[len(first)-1].ID, 0)
		all := append(first, rest...)
		requireNumbered(t, all)
		require.Equal(t, "done", all[len(all)-1].Data["status"])

		paused, resumed, pausedFrames := -1, -1, 0
		for i, e := range all {
			if e.Type != "status" {
				continue
			}
			require.NotEqual(t, true, e.Data["discard"], "nothing shown is dropped: frame %d", e.ID)
			if e.Data["status"] == "paused" {
				pausedFrames++
				paused = i
			}
			if e.Data["resumed"] == true {
				resumed = i
			}
		}
		require.Equal(t, 1, pausedFrames, "the turn's stream says paused, once")
		require.Greater(t, resumed, paused, "then that the call resumed")
		partial := hubtest.Text(all[:resumed])
		require.True(t, strings.HasPrefix(partial, "slow "), "%q", partial)
		require.Less(t, len(partial), len(endless), "paused mid-reply")
		want := partial + " and that is the end."
		require.Equal(t, want, hubtest.Text(all), "the reply so far, then the continuation without its repeat")

		reqs := s.Model.Requests()
		require.Len(t, reqs, 2)
		msgs := reqs[1].Messages
		require.GreaterOrEqual(t, len(msgs), 2)
		require.Equal(t, "assistant", msgs[len(msgs)-2].Role)
		require.Equal(t, partial, msgs[len(msgs)-2].Content, "the reply so far, as the assistant's")
		require.Equal(t, "user", msgs[len(msgs)-1].Role)
		require.Equal(t, assistant.ContinueNote, msgs[len(msgs)-1].Content)

		reply := replyOf(t, s, conv, st.ReplyMessageID)
		require.Equal(t, "done", reply["status"])
		require.Equal(t, want, reply["text"], "the saved reply is what was shown")
	})
}

package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"hub/activities"
)

// completionRun is how a Completion workflow ran with mocked activities:
// the statuses it recorded, its model calls and how it ended.
type completionRun struct {
	statuses []string
	calls    int
	ended    []activities.CompletionEnd
	res      CompletionResult
}

// runCompletion runs Completion with its bound (as the api starts it);
// each model call takes takes of workflow time, then answers with
// answer(call number); signals are sent at their times.
func runCompletion(t *testing.T, takes time.Duration, answer func(n int) error, signals map[time.Duration]string) completionRun {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{WorkflowExecutionTimeout: CompletionTimeout + CompletionGrace})
	env.RegisterActivity(&activities.Activities{})
	var run completionRun
	env.OnActivity(a.SetCompletionStatus, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.CompletionStatus) error {
		run.statuses = append(run.statuses, in.Status)
		return nil
	})
	env.OnActivity(a.RunCompletion, mock.Anything, mock.Anything).After(takes).Return(func(_ context.Context, in activities.CompletionRef) error {
		run.calls++
		require.Equal(t, "cmpl_1", in.CompletionID)
		return answer(run.calls)
	})
	env.OnActivity(a.EndCompletion, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.CompletionEnd) error {
		run.ended = append(run.ended, in)
		return nil
	})
	for at, signal := range signals {
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(signal, nil) }, at)
	}
	env.ExecuteWorkflow(Completion, CompletionInput{CompletionID: "cmpl_1"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, env.GetWorkflowResult(&run.res))
	return run
}

func answers(int) error { return nil }

func TestCompletionThatAnswersIsDone(t *testing.T) {
	run := runCompletion(t, time.Second, answers, nil)
	require.Equal(t, CompletionResult{Status: StatusDone}, run.res)
	require.Equal(t, 1, run.calls)
	require.Equal(t, []string{StatusWorking}, run.statuses)
	require.Empty(t, run.ended, "RunCompletion saved the ending with the result")
}

func TestCompletionStoppedEndsItsCallAndIsStopped(t *testing.T) {
	run := runCompletion(t, time.Minute, answers, map[time.Duration]string{10 * time.Second: StopSignal})
	require.Equal(t, StatusStopped, run.res.Status)
	require.Zero(t, run.calls, "the call in flight was cancelled before it answered")
	require.Equal(t, []activities.CompletionEnd{{CompletionID: "cmpl_1", Status: StatusStopped}}, run.ended)
}

func TestCompletionPausedRunsItsCallAgainOnResume(t *testing.T) {
	run := runCompletion(t, 20*time.Second, answers, map[time.Duration]string{
		10 * time.Second: PauseSignal, 30 * time.Second: ResumeSignal})
	require.Equal(t, StatusDone, run.res.Status, "the call run again after Resume answered")
	require.Equal(t, []string{StatusWorking, StatusPaused, StatusWorking}, run.statuses)
}

func TestCompletionPastItsBoundEndsAsTimeout(t *testing.T) {
	run := runCompletion(t, time.Hour, answers, nil)
	require.Equal(t, StatusError, run.res.Status)
	require.Equal(t, CodeTimeout, run.res.ErrorCode)
	require.Equal(t, "This completion did not finish within its time limit of 2 minutes, so it was stopped. Start it again.", run.res.ErrorMessage)
	require.Len(t, run.ended, 1)

	paused := runCompletion(t, time.Hour, answers, map[time.Duration]string{time.Second: PauseSignal})
	require.Equal(t, CodeTimeout, paused.res.ErrorCode)
	require.Contains(t, paused.res.ErrorMessage, "stayed paused past its time limit of 2 minutes")
}

func TestCompletionFailuresSayWhy(t *testing.T) {
	for _, tc := range []struct {
		err        error
		code, says string
	}{
		{temporal.NewNonRetryableApplicationError("This space's monthly budget of $0.00 cannot hold …", activities.ErrTypeBudget, nil), CodeBudgetExceeded, "monthly budget"},
		{temporal.NewNonRetryableApplicationError("the skill is gone", activities.ErrTypeGone, nil), CodeNotFound, "deleted meanwhile"},
		{temporal.NewNonRetryableApplicationError("The file was replaced …", activities.ErrTypeStale, nil), CodeStale, "replaced"},
		{temporal.NewNonRetryableApplicationError("A picture has no text to summarize.", activities.ErrTypeUnextractable, nil), CodeFailed, "no text"},
		{temporal.NewNonRetryableApplicationError("The model's answer was not the summary asked for.", activities.ErrTypeNoSummary, nil), CodeModel, "summary"},
		{temporal.NewNonRetryableApplicationError("400 bad request", activities.ErrTypeModel, nil), CodeModel, "could not answer"},
	} {
		run := runCompletion(t, time.Second, func(int) error { return tc.err }, nil)
		require.Equal(t, StatusError, run.res.Status, "%v", tc.err)
		require.Equal(t, tc.code, run.res.ErrorCode, "%v", tc.err)
		require.Contains(t, run.res.ErrorMessage, tc.says)
		require.Equal(t, 1, run.calls, "not retried: %v", tc.err)
	}
}

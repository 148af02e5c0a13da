package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"hub/activities"
)

// boundedTurn runs Turn with a one-hour wall-time bound (as the api starts
// it) and mocked activities: the model call of step 1 takes modelTakes of
// workflow time and asks for one tool call, which takes toolTakes; later
// steps answer at once. It returns how the turn was finished and how many
// model and tool calls answered.
func boundedTurn(t *testing.T, modelTakes, toolTakes time.Duration, signals map[time.Duration]string) (activities.FinishInput, int, int) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{WorkflowExecutionTimeout: time.Hour + TurnTimeoutGrace})
	env.RegisterActivity(&activities.Activities{})
	env.OnActivity(a.PrepareTurn, mock.Anything, mock.Anything).Return(activities.Plan{
		Model: "test-model", ModelTimeout: 2 * time.Hour, MaxSteps: 8, OfferedTools: []string{"hub_list_tasks"}}, nil)
	env.OnActivity(a.SetTurnStatus, mock.Anything, mock.Anything).Return(nil)
	models, tools := 0, 0
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).After(modelTakes).Return(
		func(_ context.Context, in activities.CallModelInput) (activities.ModelStep, error) {
			models++
			if in.Step == 1 {
				return activities.ModelStep{ToolCalls: calls("c1")}, nil
			}
			return activities.ModelStep{HasText: true}, nil
		})
	env.OnActivity(a.RunTool, mock.Anything, mock.Anything).After(toolTakes).Return(
		func(context.Context, activities.RunToolInput) (activities.ToolOutcome, error) {
			tools++
			return activities.ToolOutcome{Status: "done"}, nil
		})
	var finished []activities.FinishInput
	env.OnActivity(a.FinishTurn, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.FinishInput) error {
		finished = append(finished, in)
		return nil
	})
	for at, signal := range signals {
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(signal, nil) }, at)
	}
	env.ExecuteWorkflow(Turn, TurnInput{TurnID: "turn_1", ConversationID: "conv_1", SpaceID: "space_1", ActorID: "person_1"})
	require.True(t, env.IsWorkflowCompleted())
	require.Len(t, finished, 1, "the turn saves its ending first")
	res, err := endingOf(t, env)
	require.NoError(t, err)
	require.Equal(t, finished[0].Status, res.Status)
	return finished[0], models, tools
}

func TestTurnPastItsBoundWhileTheModelTalksEndsAsTimeout(t *testing.T) {
	end, models, tools := boundedTurn(t, 3*time.Hour, 0, nil)
	require.Equal(t, "error", end.Status)
	require.Equal(t, CodeTimeout, end.ErrorCode)
	require.Equal(t, "This turn ran past its time limit of 1 hour, so I stopped it. What was written so far is kept; ask again, or split the request into smaller ones.", end.ErrorMessage)
	require.Zero(t, models, "the model call in flight was cancelled before it answered, and none ran after it")
	require.Zero(t, tools)
}

func TestTurnPastItsBoundWhilePausedEndsAsTimeout(t *testing.T) {
	end, _, _ := boundedTurn(t, 10*time.Minute, 0, map[time.Duration]string{time.Minute: PauseSignal})
	require.Equal(t, "error", end.Status)
	require.Equal(t, CodeTimeout, end.ErrorCode)
	require.Contains(t, end.ErrorMessage, "stayed paused past its time limit of 1 hour")
}

func TestToolCallRunningAtTheBoundFinishesFirst(t *testing.T) {
	end, models, tools := boundedTurn(t, 50*time.Minute, 20*time.Minute, nil)
	require.Equal(t, CodeTimeout, end.ErrorCode)
	require.Equal(t, 1, tools, "the write already running finished and is reported")
	require.Equal(t, 1, models, "no model step starts past the bound")
}

func TestTurnWithinItsBoundIsNotCut(t *testing.T) {
	end, models, tools := boundedTurn(t, 20*time.Minute, time.Minute, nil)
	require.Equal(t, "done", end.Status)
	require.Equal(t, 2, models)
	require.Equal(t, 1, tools)
}

func TestSpell(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second:                     "30 seconds",
		time.Minute:                          "1 minute",
		45 * time.Minute:                     "45 minutes",
		time.Hour:                            "1 hour",
		130 * time.Minute:                    "2 hours 10 minutes",
		DefaultTurnTimeout(0):                "2 hours 10 minutes",
		DefaultTurnTimeout(time.Minute):      "18 minutes",
		61*time.Minute + 20*time.Second:      "1 hour 1 minute",
		2*time.Hour + 59*time.Second:         "2 hours 1 minute",
		24*time.Hour + 30*time.Minute:        "24 hours 30 minutes",
		DefaultTurnTimeout(30 * time.Minute): "4 hours 10 minutes",
	} {
		require.Equal(t, want, spell(d), "%s", d)
	}
}

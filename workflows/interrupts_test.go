package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"hub/activities"
)

// A pause and a resume both heard while a step's tool call runs: the turn
// never waits paused, so it records working itself before the next model
// call (the api writes working only after it sent the Resume, so the row
// may still read paused and the call would refuse), and tells the call how
// many stops and pauses it heard.
func TestPauseAndResumeDuringAToolCallRecordWorkingBeforeTheNextStep(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivity(&activities.Activities{})
	env.OnActivity(a.PrepareTurn, mock.Anything, mock.Anything).Return(activities.Plan{
		Model: "test-model", ModelTimeout: 2 * time.Minute, MaxSteps: 8}, nil)
	var log []string
	env.OnActivity(a.SetTurnStatus, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.StatusInput) error {
		log = append(log, "status "+in.Status)
		return nil
	})
	var models []activities.CallModelInput
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.CallModelInput) (activities.ModelStep, error) {
			log = append(log, "model")
			models = append(models, in)
			if in.Step == 1 {
				return activities.ModelStep{ToolCalls: calls("c1")}, nil
			}
			return activities.ModelStep{HasText: true}, nil
		})
	env.OnActivity(a.RunTool, mock.Anything, mock.Anything).After(time.Minute).Return(
		func(context.Context, activities.RunToolInput) (activities.ToolOutcome, error) {
			log = append(log, "tool")
			return activities.ToolOutcome{Status: "done"}, nil
		})
	env.OnActivity(a.FinishTurn, mock.Anything, mock.Anything).Return(nil)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(PauseSignal, nil) }, 10*time.Second)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(ResumeSignal, nil) }, 20*time.Second)
	env.ExecuteWorkflow(Turn, TurnInput{TurnID: "turn_1", ConversationID: "conv_1", SpaceID: "space_1", ActorID: "person_1"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())

	require.Equal(t, []string{"model", "tool", "status working", "model"}, log)
	require.Equal(t, activities.CallModelInput{TurnID: "turn_1", Step: 1, CountsInterrupts: true}, models[0])
	require.Equal(t, activities.CallModelInput{TurnID: "turn_1", Step: 2, Interrupts: 1, CountsInterrupts: true}, models[1])
}

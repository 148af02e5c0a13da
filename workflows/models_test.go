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

// The model and effort a turn was started with go with every model call
// of its run, so a reset (the same input) calls the model the person
// chose; a turn started without them calls with none (the activity reads
// the turn).
func TestEveryModelCallCarriesTheTurnsModel(t *testing.T) {
	for _, in := range []TurnInput{
		{TurnID: "turn_1", Model: "deep", Effort: "high"},
		{TurnID: "turn_1"},
	} {
		var s testsuite.WorkflowTestSuite
		env := s.NewTestWorkflowEnvironment()
		env.RegisterActivity(&activities.Activities{})
		env.OnActivity(a.PrepareTurn, mock.Anything, mock.Anything).Return(activities.Plan{
			Model: "deep-v2", ModelTimeout: 2 * time.Minute, MaxSteps: 8}, nil)
		env.OnActivity(a.SetTurnStatus, mock.Anything, mock.Anything).Return(nil)
		var calls []activities.CallModelInput
		env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(
			func(_ context.Context, c activities.CallModelInput) (activities.ModelStep, error) {
				calls = append(calls, c)
				if c.Step == 1 {
					return activities.ModelStep{ToolCalls: []activities.ToolCallRef{{ID: "c1", Tool: "hub_list_tasks"}}}, nil
				}
				return activities.ModelStep{HasText: true}, nil
			})
		env.OnActivity(a.RunTool, mock.Anything, mock.Anything).Return(activities.ToolOutcome{Status: "done"}, nil)
		env.OnActivity(a.FinishTurn, mock.Anything, mock.Anything).Return(nil)
		env.ExecuteWorkflow(Turn, in)
		require.True(t, env.IsWorkflowCompleted())
		require.NoError(t, env.GetWorkflowError())
		require.Len(t, calls, 2)
		for _, c := range calls {
			require.Equal(t, in.Model, c.Model)
			require.Equal(t, in.Effort, c.Effort)
		}
	}
}

package workflows

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"hub/activities"
)

type harness struct {
	env *testsuite.TestWorkflowEnvironment
	// mu guards what the activities record: a step's tool calls run at once.
	mu       sync.Mutex
	finished []activities.FinishInput
	models   []activities.CallModelInput
	tools    []activities.RunToolInput
	toolErr  error
}

// newHarness runs Turn with mocked activities: PrepareTurn plans maxSteps,
// CallModel answers from step, RunTool succeeds.
func newHarness(t *testing.T, maxSteps int, step func(in activities.CallModelInput, attempt int) (activities.ModelStep, error)) *harness {
	var s testsuite.WorkflowTestSuite
	h := &harness{env: s.NewTestWorkflowEnvironment()}
	h.env.RegisterActivity(&activities.Activities{})
	h.env.OnActivity(a.PrepareTurn, mock.Anything, mock.Anything).Return(activities.Plan{
		Model: "test-model", ModelTimeout: 2 * time.Minute, MaxSteps: maxSteps, OfferedTools: []string{"hub_list_tasks"},
	}, nil)
	attempts := map[int]int{}
	h.env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.CallModelInput) (activities.ModelStep, error) {
		attempts[in.Step]++
		h.models = append(h.models, in)
		return step(in, attempts[in.Step])
	})
	h.env.OnActivity(a.RunTool, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.RunToolInput) (activities.ToolOutcome, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.tools = append(h.tools, in)
		if h.toolErr != nil {
			return activities.ToolOutcome{}, h.toolErr
		}
		return activities.ToolOutcome{Status: "done"}, nil
	})
	h.env.OnActivity(a.FinishTurn, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.FinishInput) error {
		h.finished = append(h.finished, in)
		return nil
	})
	return h
}

func (h *harness) run(t *testing.T) TurnResult {
	h.env.ExecuteWorkflow(Turn, TurnInput{TurnID: "turn_1", ConversationID: "conv_1", SpaceID: "space_1", ActorID: "person_1"})
	require.True(t, h.env.IsWorkflowCompleted())
	require.Len(t, h.finished, 1, "a turn is finished exactly once")
	res, err := endingOf(t, h.env)
	require.NoError(t, err)
	return res
}

// endingOf reads how the turn's workflow ended: an error turn fails it
// with Hub's code (TurnFailed), after the ending was saved; TurnEnding
// turns that back into the result.
func endingOf(t *testing.T, env *testsuite.TestWorkflowEnvironment) (TurnResult, error) {
	t.Helper()
	var res TurnResult
	werr := env.GetWorkflowError()
	if werr == nil {
		require.NoError(t, env.GetWorkflowResult(&res))
		require.NotEqual(t, "error", res.Status, "an error turn fails its workflow")
		return res, nil
	}
	var ae *temporal.ApplicationError
	require.ErrorAs(t, werr, &ae, "an error turn fails with an application error")
	require.True(t, ae.NonRetryable())
	res, err := TurnEnding(TurnResult{}, werr)
	if err == nil {
		require.Equal(t, res.ErrorCode, ae.Type(), "the failure's type is Hub's error code")
		require.Equal(t, res.ErrorMessage, ae.Message())
	}
	return res, err
}

func calls(ids ...string) []activities.ToolCallRef {
	var out []activities.ToolCallRef
	for _, id := range ids {
		out = append(out, activities.ToolCallRef{ID: id, Tool: "hub_list_tasks"})
	}
	return out
}

func TestTurnRunsToolsBetweenModelSteps(t *testing.T) {
	h := newHarness(t, 8, func(in activities.CallModelInput, _ int) (activities.ModelStep, error) {
		switch in.Step {
		case 1:
			return activities.ModelStep{ToolCalls: calls("c1", "c2")}, nil
		case 2:
			return activities.ModelStep{ToolCalls: calls("c3")}, nil
		}
		return activities.ModelStep{HasText: true}, nil
	})
	res := h.run(t)
	require.Equal(t, TurnResult{Status: "done", Steps: 3}, res)
	require.Len(t, h.models, 3)
	require.ElementsMatch(t, []string{"c1", "c2", "c3"}, []string{h.tools[0].CallID, h.tools[1].CallID, h.tools[2].CallID})
	for _, m := range h.models {
		require.False(t, m.ToolsOff, "only the last possible step is tools-off")
	}
	require.Equal(t, "done", h.finished[0].Status)
}

func TestTurnStopsAtMaxStepsWithToolsOffLastStep(t *testing.T) {
	h := newHarness(t, 8, func(in activities.CallModelInput, _ int) (activities.ModelStep, error) {
		if in.ToolsOff {
			return activities.ModelStep{HasText: true}, nil
		}
		return activities.ModelStep{ToolCalls: calls("again")}, nil
	})
	res := h.run(t)
	require.Equal(t, TurnResult{Status: "done", Steps: 8}, res)
	require.Len(t, h.models, 8)
	for i, m := range h.models {
		require.Equal(t, i+1, m.Step)
		require.Equal(t, i == 7, m.ToolsOff, "step %d", m.Step)
	}
	require.Len(t, h.tools, 7)
}

func TestModelFailuresAreClassified(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		failures int // attempts that fail before one succeeds (0: all fail)
		status   string
		code     string
		message  string
		attempts int
	}{
		{"retryable failure then success", temporal.NewApplicationError("429", "rate_limited"), 2, "done", "", "", 3},
		{"non-retryable model error", temporal.NewNonRetryableApplicationError("400 bad request", activities.ErrTypeModel, nil), 0, "error", CodeModel, "could not answer", 1},
		{"no model configured", temporal.NewNonRetryableApplicationError("Set OPENAI_API_KEY", activities.ErrTypeUnavailable, nil), 0, "error", CodeUnavailable, "OPENAI_API_KEY", 1},
		{"the model's own limit", temporal.NewNonRetryableApplicationError("test-model did not answer within 2 minutes", activities.ErrTypeTimeout, nil), 0, "error", CodeTimeout, "did not answer within 2 minutes", 1},
		{"retries run out", errors.New("connection reset"), 0, "error", CodeModel, "could not answer", 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 8, func(in activities.CallModelInput, attempt int) (activities.ModelStep, error) {
				if tc.failures == 0 || attempt <= tc.failures {
					return activities.ModelStep{}, tc.err
				}
				return activities.ModelStep{HasText: true}, nil
			})
			res := h.run(t)
			require.Equal(t, tc.status, res.Status)
			require.Len(t, h.models, tc.attempts)
			require.Equal(t, tc.code, h.finished[0].ErrorCode)
			require.Contains(t, h.finished[0].ErrorMessage, tc.message)
		})
	}
}

func TestActivityTimeoutNamesTheModelAndTheLimit(t *testing.T) {
	h := newHarness(t, 8, func(in activities.CallModelInput, _ int) (activities.ModelStep, error) {
		return activities.ModelStep{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil)
	})
	res := h.run(t)
	require.Equal(t, "error", res.Status)
	require.Equal(t, CodeTimeout, h.finished[0].ErrorCode)
	require.Equal(t, "test-model did not answer within 2 minutes, so I stopped waiting. Ask again, or try a narrower question.", h.finished[0].ErrorMessage)
}

func TestToolActivityFailureEndsTheTurnAsError(t *testing.T) {
	h := newHarness(t, 8, func(in activities.CallModelInput, _ int) (activities.ModelStep, error) {
		return activities.ModelStep{ToolCalls: calls("c1")}, nil
	})
	h.toolErr = temporal.NewNonRetryableApplicationError("db down", "x", nil)
	res := h.run(t)
	require.Equal(t, "error", res.Status)
	require.Equal(t, CodeFailed, h.finished[0].ErrorCode)
}

func TestStateQueryAnswersTheStep(t *testing.T) {
	h := newHarness(t, 8, func(in activities.CallModelInput, _ int) (activities.ModelStep, error) {
		if in.Step == 1 {
			return activities.ModelStep{ToolCalls: calls("c1")}, nil
		}
		return activities.ModelStep{HasText: true}, nil
	})
	h.run(t)
	v, err := h.env.QueryWorkflow(StateQuery)
	require.NoError(t, err)
	var st TurnState
	require.NoError(t, v.Get(&st))
	require.Equal(t, TurnState{Status: "done", Step: 2}, st)
}

func TestTimeoutMessage(t *testing.T) {
	require.Equal(t, "gpt-x did not answer within 15 minutes, so I stopped waiting. Ask again, or try a narrower question.", TimeoutMessage("gpt-x", 15*time.Minute))
	require.Equal(t, "gpt-x did not answer within 1 minute, so I stopped waiting. Ask again, or try a narrower question.", TimeoutMessage("gpt-x", time.Minute))
	require.Equal(t, "The model did not answer within 30 seconds, so I stopped waiting. Ask again, or try a narrower question.", TimeoutMessage("", 30*time.Second))
}

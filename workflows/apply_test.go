package workflows

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"hub/activities"
)

type applyHarness struct {
	env *testsuite.TestWorkflowEnvironment
	// mu guards what the activities record: a plan's spaces run at once.
	mu      sync.Mutex
	ran     []string // "space:<id>" and "outside:<call>", in the order they ran
	spaces  []activities.ApplySpaceInput
	outside []activities.ApplyOutsideInput
	failed  []activities.FailCallsInput
}

func newApplyHarness(t *testing.T, plan activities.ApplyBatches, spaceErr, outsideErr error) *applyHarness {
	var s testsuite.WorkflowTestSuite
	h := &applyHarness{env: s.NewTestWorkflowEnvironment()}
	h.env.RegisterActivity(&activities.Activities{})
	h.env.OnActivity(a.PlanApply, mock.Anything, mock.Anything).Return(plan, nil)
	h.env.OnActivity(a.ApplySpace, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ApplySpaceInput) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.spaces = append(h.spaces, in)
		h.ran = append(h.ran, "space:"+in.SpaceID)
		return spaceErr
	})
	h.env.OnActivity(a.ApplyOutside, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ApplyOutsideInput) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.outside = append(h.outside, in)
		h.ran = append(h.ran, "outside:"+in.CallID)
		return outsideErr
	})
	h.env.OnActivity(a.FailCalls, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.FailCallsInput) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.failed = append(h.failed, in)
		return nil
	})
	h.env.OnActivity(a.ApplyReceipts, mock.Anything, mock.Anything).Return([]activities.ApplyReceipt{{CallID: "c1", Status: "succeeded"}}, nil)
	return h
}

// apply sends one Apply update right after start and returns its result.
func (h *applyHarness) apply(t *testing.T, req ApplyRequest) (ApplyResult, error) {
	var res ApplyResult
	var uerr error
	done := false
	h.env.RegisterDelayedCallback(func() {
		h.env.UpdateWorkflow(ApplyUpdate, "u1", &testsuite.TestUpdateCallback{
			OnAccept: func() {},
			OnReject: func(err error) { uerr, done = err, true },
			OnComplete: func(v any, err error) {
				if err == nil {
					res = v.(ApplyResult)
				}
				uerr, done = err, true
			},
		}, req)
	}, 0)
	h.env.ExecuteWorkflow(Apply, ApplyInput{MessageID: "msg_1", ConversationID: "conv_1", PersonID: "person_1"})
	require.True(t, done, "the update finished")
	require.True(t, h.env.IsWorkflowCompleted(), "the workflow ends after it has been idle")
	require.NoError(t, h.env.GetWorkflowError())
	return res, uerr
}

func TestApplyRunsSpacesAtOnceThenOutsideWritesInOrder(t *testing.T) {
	plan := activities.ApplyBatches{
		Spaces:  []activities.SpaceBatch{{SpaceID: "s1", CallIDs: []string{"c1", "c2"}}, {SpaceID: "s2", CallIDs: []string{"c3"}}},
		Outside: []activities.CallRef{{CallID: "c4", SpaceID: "s1"}, {CallID: "c5", SpaceID: "s1"}},
	}
	h := newApplyHarness(t, plan, nil, nil)
	res, err := h.apply(t, ApplyRequest{})
	require.NoError(t, err)
	require.Len(t, res.Receipts, 1)
	// The spaces run at once, in any order; the outside writes after both,
	// one at a time, in the order proposed.
	require.Len(t, h.ran, 4)
	require.ElementsMatch(t, []string{"space:s1", "space:s2"}, h.ran[:2])
	require.Equal(t, []string{"outside:c4", "outside:c5"}, h.ran[2:])
	require.Empty(t, h.failed)
}

func TestApplyRecordsFailuresInsteadOfFailingTheWorkflow(t *testing.T) {
	plan := activities.ApplyBatches{
		Spaces:  []activities.SpaceBatch{{SpaceID: "s1", CallIDs: []string{"c1"}}},
		Outside: []activities.CallRef{{CallID: "c2", SpaceID: "s1"}},
	}
	h := newApplyHarness(t, plan, errors.New("database gone"), errors.New("worker died mid-send"))
	_, err := h.apply(t, ApplyRequest{})
	require.NoError(t, err)
	require.Len(t, h.spaces, 4, "database faults are retried a bounded number of times")
	require.Len(t, h.outside, 1, "an outside write is never resent on its own")
	require.Len(t, h.failed, 2)
	require.Equal(t, "failed", h.failed[0].Status)
	require.Equal(t, "unknown", h.failed[1].Status)
	require.Equal(t, []string{"c2"}, h.failed[1].CallIDs)
}

func TestApplyWorkflowWaitsForRetriesThenEnds(t *testing.T) {
	h := newApplyHarness(t, activities.ApplyBatches{}, nil, nil)
	start := h.env.Now()
	_, err := h.apply(t, ApplyRequest{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, h.env.Now().Sub(start), applyIdle, "it stays for a Retry while idle")
}

func TestWorkflowStepsStopAtTheFirstThatDoesNotSucceed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		statuses map[string]string
		ran      []string
	}{
		{"all succeed", map[string]string{}, []string{"a", "b", "c"}},
		{"a failure stops the rest", map[string]string{"b": "failed"}, []string{"a", "b"}},
		{"an interrupted step stops the rest", map[string]string{"a": "interrupted"}, []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := activities.ApplyBatches{Plans: []activities.CallRef{{CallID: "w1", SpaceID: "s1"}}}
			h := newApplyHarness(t, plan, nil, nil)
			h.env.OnActivity(a.PrepareSteps, mock.Anything, mock.Anything).Return([]string{"a", "b", "c"}, nil)
			var ran []string
			var retry []bool
			h.env.OnActivity(a.ApplyStep, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ApplyPlanStepInput) (string, error) {
				ran = append(ran, in.StepID)
				retry = append(retry, in.RetryInterrupted)
				if s, ok := tc.statuses[in.StepID]; ok {
					return s, nil
				}
				return "succeeded", nil
			})
			finished := 0
			h.env.OnActivity(a.FinishWorkflowCall, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.PlanCallInput) error {
				finished++
				require.Equal(t, "w1", in.CallID)
				return nil
			})
			_, err := h.apply(t, ApplyRequest{RetryInterrupted: true})
			require.NoError(t, err)
			require.Equal(t, tc.ran, ran)
			require.Equal(t, 1, finished, "the call's receipt is written once, after the steps")
			for _, r := range retry {
				require.True(t, r, "the person's Retry remaining steps reaches every step")
			}
		})
	}
}

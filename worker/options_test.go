package worker

import (
	"testing"

	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"
)

// The worker's pollers scale with the server's feedback (measured against
// fixed counts, docs/temporal.md), and the slots keep their bound.
func TestWorkerOptions(t *testing.T) {
	o := sdkOptions()
	auto := sdkworker.NewPollerBehaviorAutoscaling(sdkworker.PollerBehaviorAutoscalingOptions{})
	require.Equal(t, auto, o.WorkflowTaskPollerBehavior)
	require.Equal(t, auto, o.ActivityTaskPollerBehavior)
	require.Zero(t, o.MaxConcurrentWorkflowTaskPollers, "exclusive with the poller behavior")
	require.Zero(t, o.MaxConcurrentActivityTaskPollers, "exclusive with the poller behavior")
	require.Equal(t, 200, o.MaxConcurrentActivityExecutionSize)
	require.Equal(t, 200, o.MaxConcurrentLocalActivityExecutionSize)
	require.False(t, o.DisableEagerActivities)
}

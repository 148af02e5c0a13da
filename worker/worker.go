// Package worker builds the Temporal worker that runs Hub's workflows and
// activities, with the options that keep a turn fast: eager activities and
// enough slots for a model call never to wait behind tool calls.
package worker

import (
	"cmp"
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"hub/activities"
	"hub/workflows"
)

// New returns a worker on taskQueue ("" means workflows.DefaultTaskQueue)
// with every workflow and activity registered.
func New(c client.Client, acts *activities.Activities, taskQueue string) sdkworker.Worker {
	w := sdkworker.New(c, cmp.Or(taskQueue, workflows.DefaultTaskQueue), sdkOptions())
	w.RegisterWorkflow(workflows.Turn)
	w.RegisterWorkflow(workflows.Apply)
	w.RegisterWorkflow(workflows.IndexFile)
	w.RegisterWorkflow(workflows.ScheduledTurn)
	w.RegisterWorkflow(workflows.Completion)
	w.RegisterActivity(acts)
	return w
}

func sdkOptions() sdkworker.Options {
	return sdkworker.Options{
		// Model calls included.
		MaxConcurrentActivityExecutionSize:      200,
		MaxConcurrentLocalActivityExecutionSize: 200,
		// Autoscaled pollers cost less CPU per workflow than the SDK's fixed
		// 2 (BenchmarkPollers; docs/temporal.md, "SQLite and the worker's
		// options, measured").
		WorkflowTaskPollerBehavior: sdkworker.NewPollerBehaviorAutoscaling(sdkworker.PollerBehaviorAutoscalingOptions{}),
		ActivityTaskPollerBehavior: sdkworker.NewPollerBehaviorAutoscaling(sdkworker.PollerBehaviorAutoscalingOptions{}),
		// The SDK's default, said here because a turn's latency depends on it.
		DisableEagerActivities: false,
		// A stopped worker waits this long for running activities (a write
		// committing) before it leaves.
		WorkerStopTimeout: 10 * time.Second,
	}
}

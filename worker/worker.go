// Package worker builds the Temporal worker that runs Hub's workflows and
// activities, with the options that keep a turn fast: eager activity
// execution (an activity the workflow schedules starts in this worker
// without a round trip through matching) and enough slots for a model
// call to never wait behind tool calls.
package worker

import (
	"cmp"
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"hub/activities"
	"hub/workflows"
)

// Options tune the worker.
type Options struct {
	// TaskQueue is the queue the worker polls; "" means
	// workflows.DefaultTaskQueue.
	TaskQueue string
	// MaxConcurrentActivities bounds activities running at once (model calls
	// included); 0 means 200.
	MaxConcurrentActivities int
}

// New returns a worker on Hub's task queue (o.TaskQueue) with every workflow and
// activity registered. Start it with Run or Start; it stops with the
// client's context.
func New(c client.Client, acts *activities.Activities, o Options) sdkworker.Worker {
	w := sdkworker.New(c, cmp.Or(o.TaskQueue, workflows.DefaultTaskQueue), sdkOptions(o))
	w.RegisterWorkflow(workflows.Turn)
	w.RegisterWorkflow(workflows.Apply)
	w.RegisterActivity(acts)
	return w
}

// sdkOptions are the SDK worker options New uses.
func sdkOptions(o Options) sdkworker.Options {
	if o.MaxConcurrentActivities == 0 {
		o.MaxConcurrentActivities = 200
	}
	return sdkworker.Options{
		MaxConcurrentActivityExecutionSize:      o.MaxConcurrentActivities,
		MaxConcurrentLocalActivityExecutionSize: o.MaxConcurrentActivities,
		// Pollers scaled by the server's feedback (the SDK starts 5 of each
		// and keeps 1–100) rather than the SDK's fixed 2. Measured with
		// BenchmarkPollers (temporal/bench_test.go; docs/temporal.md, "SQLite
		// and the worker's options, measured"): at 20 workflows in flight the
		// fixed 2 cost more CPU per workflow than autoscaling in 7 of 8
		// alternated rounds (median 56 against 48 ms), 8 fixed pollers in
		// between. With eager start and eager activities a turn polls only
		// for the workflow tasks after its model calls; likely why: a task
		// that finds no poll waiting goes to matching's backlog and back.
		WorkflowTaskPollerBehavior: sdkworker.NewPollerBehaviorAutoscaling(sdkworker.PollerBehaviorAutoscalingOptions{}),
		ActivityTaskPollerBehavior: sdkworker.NewPollerBehaviorAutoscaling(sdkworker.PollerBehaviorAutoscalingOptions{}),
		// Eager activities are on by default in the SDK; say so here because
		// the turn's latency depends on it.
		DisableEagerActivities: false,
		// A stopped worker waits this long for running activities (a write
		// committing) before it leaves.
		WorkerStopTimeout: 10 * time.Second,
	}
}

// Package worker builds the Temporal worker that runs Hub's workflows and
// activities, with the options that keep a turn fast: eager activity
// execution (an activity the workflow schedules starts in this worker
// without a round trip through matching) and enough slots for a model
// call to never wait behind tool calls.
package worker

import (
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"hub/activities"
	"hub/workflows"
)

// Options tune the worker.
type Options struct {
	// MaxConcurrentActivities bounds activities running at once (model calls
	// included); 0 means 200.
	MaxConcurrentActivities int
}

// New returns a worker on Hub's task queue with every workflow and
// activity registered. Start it with Run or Start; it stops with the
// client's context.
func New(c client.Client, acts *activities.Activities, o Options) sdkworker.Worker {
	if o.MaxConcurrentActivities == 0 {
		o.MaxConcurrentActivities = 200
	}
	w := sdkworker.New(c, workflows.TaskQueue, sdkworker.Options{
		MaxConcurrentActivityExecutionSize:      o.MaxConcurrentActivities,
		MaxConcurrentLocalActivityExecutionSize: o.MaxConcurrentActivities,
		// Eager activities are on by default in the SDK; say so here because
		// the turn's latency depends on it.
		DisableEagerActivities: false,
		// A stopped worker waits this long for running activities (a write
		// committing) before it leaves.
		WorkerStopTimeout: 10 * time.Second,
	})
	w.RegisterWorkflow(workflows.Turn)
	w.RegisterWorkflow(workflows.Apply)
	w.RegisterActivity(acts)
	return w
}
